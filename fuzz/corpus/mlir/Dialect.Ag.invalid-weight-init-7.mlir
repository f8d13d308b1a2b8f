ag.weight @w : tensor<2xf32> = #ag.init<normal, mean = 0.0, std = -0.5, seed = 1>
