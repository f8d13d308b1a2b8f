ag.weight @w : tensor<2xf32> = #ag.init<linear, seed = 1, fan_in = 2, seed = 2>
