ag.weight @w : tensor<2xf32> = #ag.init<normal, mean = 0.0, sdt = 1.0, seed = 1>
