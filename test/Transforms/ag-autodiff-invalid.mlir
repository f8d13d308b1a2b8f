// RUN: capture-opt %s -split-input-file -verify-diagnostics -ag-autodiff

ag.weight @w : tensor<3xf32>
// expected-error @+1 {{'ag.train_step' op has nothing to train: the loss depends on no trainable weight (the module has no trainable weight; mark weights `trainable`)}}
ag.train_step @t(%x: tensor<3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3xf32>
  %0 = ag.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = ag.sum %0 : tensor<3xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

ag.weight @w trainable : tensor<3xf32>
ag.weight @v trainable : tensor<3xf32>
// expected-error @+1 {{'ag.train_step' op has nothing to train: the loss depends on no trainable weight (trainable weights: @w, @v; read them with ag.read_weight on the loss's path)}}
ag.train_step @t(%x: tensor<3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<3xf32> {ag.name = "side"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3xf32>
  %l = ag.sum %x : tensor<3xf32> -> tensor<f32>
  ag.return %l, %w : tensor<f32>, tensor<3xf32>
}

// -----

ag.weight @w trainable : tensor<3xf32>
// expected-note @+1 {{in this training step}}
ag.train_step @t(%x: tensor<3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3xf32>
  // expected-error @+1 {{'ag.compare' op has no vector-Jacobian product, but the loss of @t depends on a trainable weight through it}}
  %m = ag.compare lt, %w, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = ag.sum %m : tensor<3xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// The loss reaches the trainable weight only through ag.stop_gradient.
ag.weight @w trainable : tensor<3xf32>
// expected-error @+1 {{'ag.train_step' op has nothing to train: the loss depends on no trainable weight (trainable weights: @w; read them with ag.read_weight on the loss's path)}}
ag.train_step @t(%x: tensor<3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3xf32>
  // expected-note @+1 {{the loss reaches a trainable weight only through this ag.stop_gradient, which passes no gradient}}
  %d = ag.stop_gradient %w : tensor<3xf32>
  %0 = ag.mul %x, %d : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = ag.sum %0 : tensor<3xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
