"test.use"() {g = #ag.param_group<[], #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>>} : () -> ()
