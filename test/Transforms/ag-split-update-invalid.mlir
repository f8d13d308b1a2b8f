// RUN: capture-opt %s -split-input-file -verify-diagnostics -ag-split-update

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.train_step' op has no packed gradients: run ag-autodiff and ag-pack-params before ag-split-update}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2xf32> {ag.name = "grad/w", ag.grad_of = @w})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<2xf32>
  %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
  ag.return %l, %x : tensor<f32>, tensor<2xf32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
ag.param_pack @t.params weights([@w]) offsets([0]) size(2)
// expected-error @+1 {{'ag.train_step' op has no gradient norm: run ag-insert-clip-scale before ag-split-update}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2xf32> {ag.name = "grads", ag.packed_grads = @t.params})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<2xf32>
  %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
  %g = ag.pack_grads @t.params(%x) : (tensor<2xf32>) -> tensor<2xf32>
  ag.return %l, %g : tensor<f32>, tensor<2xf32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
ag.param_pack @t.params weights([@w]) offsets([0]) size(2)
// expected-error @+1 {{'ag.train_step' op has an input named "adamw", which the AdamW update needs for its runtime hyperparameters; rename it}}
ag.train_step @t(%adamw: tensor<2xf32> {ag.name = "adamw"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2xf32> {ag.name = "grads", ag.packed_grads = @t.params}, tensor<f32> {ag.name = "grad_norm", ag.grad_norm})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<2xf32>
  %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
  %g = ag.pack_grads @t.params(%adamw) : (tensor<2xf32>) -> tensor<2xf32>
  ag.return %l, %g, %l : tensor<f32>, tensor<2xf32>, tensor<f32>
}
