ag.weight @lin.weight trainable : tensor<4x3xf32> = #ag.init<linear, fan_in = 3, seed = 1>
ag.weight @lin.bias trainable : tensor<4xf32> = #ag.init<linear, seed = 2, fan_in = 3>
ag.weight @emb : tensor<5x2xf32> = #ag.init<normal, std = 0.02, seed = 3, mean = 0.1>
ag.weight @u : tensor<8xf32> = #ag.init<uniform, low = -0.1, high = 0.1, seed = 18446744073709551615>
ag.weight @c : tensor<8xf32> = #ag.init<constant, value = -0.25>
ag.weight @z : tensor<8xf32> = #ag.init<zeros>
ag.weight @d : tensor<2xf32> = dense<[1.0, 2.0]>
ag.weight @unset : tensor<2xf32>
