// RUN: capture-opt %s -split-input-file -verify-diagnostics -ag-lower-to-gpu

// Training steps are not lowered yet: a clear error instead of a module that
// silently lacks the entry.

// expected-error @+1 {{'ag.train_step' op cannot be lowered yet: this compiler lowers forward entries only}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
