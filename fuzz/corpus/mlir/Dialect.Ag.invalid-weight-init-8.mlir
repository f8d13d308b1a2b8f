ag.weight @w : tensor<2xf32> = #ag.init<linear, fan_in = 0, seed = 1>
