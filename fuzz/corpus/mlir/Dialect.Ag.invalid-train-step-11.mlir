ag.weight @w : tensor<2xf32> {opt = #ag.adamw<lr = 1.0, beta1 = 0.5, beta2 = 0.9, eps = 1.0e-8, weight_decay = -0.1>}
