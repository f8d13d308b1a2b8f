ag.weight @w : tensor<2xf32> = #ag.init<zeros, seed = 1>
