ag.weight @w : tensor<2xf16>
