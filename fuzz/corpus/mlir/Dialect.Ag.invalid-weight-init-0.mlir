ag.weight @w : tensor<2xf32> = #ag.init<unifrom, low = 0.0, high = 1.0, seed = 1>
