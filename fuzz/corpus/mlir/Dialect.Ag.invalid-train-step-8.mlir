ag.weight @w : tensor<2xf32> {opt = #ag.adamw<lr = 1.0, beta1 = 0.9, beta2 = 1.0, eps = 1.0e-8, weight_decay = 0.0>}
