ag.weight @w : tensor<2xf32> = #ag.init<uniform, low = 1.0, high = -1.0, seed = 1>
