func.func @no_hyper() attributes {ag.train = #ag.train<pack = @p, adamw = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>, hyper_input = "", grad_norm_output = "norm">} {
  return
}
