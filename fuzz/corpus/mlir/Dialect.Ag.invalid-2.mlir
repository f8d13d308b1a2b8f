ag.weight @w : tensor<4xf32> = "nope"
