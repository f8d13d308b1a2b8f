// RUN: capture-opt %s -split-input-file -verify-diagnostics -ag-insert-clip-scale

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.train_step' op has no gradients: run ag-autodiff before ag-insert-clip-scale}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<2xf32>
  %0 = ag.mul %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %l = ag.sum %0 : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.train_step' op has an input named "max_grad_norm", which clipping needs for its runtime limit; rename it}}
ag.train_step @t(%max_grad_norm: tensor<2xf32> {ag.name = "max_grad_norm"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2xf32> {ag.name = "grad/w", ag.grad_of = @w})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @w : tensor<2xf32>
  %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
  ag.return %l, %max_grad_norm : tensor<f32>, tensor<2xf32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.train_step' op has an output named "grad_norm", which ag-insert-clip-scale needs for the gradient norm; rename it}}
ag.train_step @t(%x: tensor<f32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<f32> {ag.name = "grad_norm"}, tensor<2xf32> {ag.name = "grad/w", ag.grad_of = @w})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<2xf32>
  %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
  ag.return %l, %x, %w : tensor<f32>, tensor<f32>, tensor<2xf32>
}
