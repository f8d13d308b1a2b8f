ag.weight @w : tensor<65536x65536xf32> = dense<0.5>
