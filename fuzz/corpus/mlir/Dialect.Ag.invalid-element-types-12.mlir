ag.weight @w : tensor<2xf64>
