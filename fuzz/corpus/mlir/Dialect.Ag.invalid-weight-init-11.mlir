ag.weight @w : tensor<2xf32> = "zeros"
