ag.weight @w : tensor<2xf32> = #ag.init<1.0>
