ag.weight @w : tensor<2xbf16>
