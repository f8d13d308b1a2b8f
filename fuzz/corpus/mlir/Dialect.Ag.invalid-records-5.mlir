func.func @bad_group() attributes {ag.train = #ag.train<pack = @p, adamw = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>, groups = [1], hyper_input = "adamw", grad_norm_output = "norm">} {
  return
}
