// RUN: capture-opt %s -split-input-file -verify-diagnostics -ag-pack-params
// RUN: not capture-opt %s -split-input-file -ag-pack-params=alignment=6 2>&1 | FileCheck %s --check-prefix=ALIGN

// ALIGN: ag-pack-params: alignment must be a power of two >= 4, got 6

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.train_step' op has no gradients: run ag-autodiff before ag-pack-params}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<2xf32>
  %0 = ag.mul %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %l = ag.sum %0 : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.train_step' op has an output named "grads", which ag-pack-params needs for the packed gradients; rename it}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2xf32> {ag.name = "grads"}, tensor<2xf32> {ag.name = "grad/w", ag.grad_of = @w})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<2xf32>
  %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
  ag.return %l, %x, %x : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
ag.train_step @t1(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2xf32> {ag.name = "grad/w", ag.grad_of = @w})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<2xf32>
  %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
  ag.return %l, %x : tensor<f32>, tensor<2xf32>
}
// expected-error @+1 {{'ag.train_step' op trains @w, which @t1 trains too: a weight can belong to one training step's optimizer state only}}
ag.train_step @t2(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2xf32> {ag.name = "grad/w", ag.grad_of = @w})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<2xf32>
  %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
  ag.return %l, %x : tensor<f32>, tensor<2xf32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
ag.weight @frozen : tensor<2xf32>
// expected-error @+1 {{'ag.train_step' op param group 1 lists @frozen, which the step does not train (its loss does not reach it, or it is not trainable)}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2xf32> {ag.name = "grad/w", ag.grad_of = @w})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                param_groups = [#ag.param_group<[@frozen], #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>>]} {
  %w = ag.read_weight @w : tensor<2xf32>
  %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
  ag.return %l, %x : tensor<f32>, tensor<2xf32>
}
