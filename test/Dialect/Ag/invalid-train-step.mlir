// RUN: capture-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'ag.train_step' op unsupported optimizer "sgd": expected #ag.adamw<lr = ..., beta1 = ..., beta2 = ..., eps = ..., weight_decay = ...>}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = "sgd"} {
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// expected-error @+1 {{'ag.train_step' op max_grad_norm must be finite and > 0, got 0}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                max_grad_norm = 0.0 : f32} {
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// expected-error @+1 {{'ag.train_step' op max_grad_norm must be finite and > 0, got nan}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                max_grad_norm = 0x7FC00000 : f32} {
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// expected-error @+1 {{'ag.train_step' op max_grad_norm must be finite and > 0, got INF}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                max_grad_norm = 0x7F800000 : f32} {
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// expected-error @+1 {{'ag.train_step' op the loss (output #0) must be a scalar tensor<f32>, but found 'tensor<2xf32>'}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  ag.return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'ag.train_step' op needs the loss as its first output}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> ()
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  ag.return
}

// -----

// expected-error @+1 {{'ag.train_step' op input #0 needs a name}}
ag.train_step @t(%x: tensor<2xf32>) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// expected-error @+1 {{AdamW lr must be finite and > 0, got -1}}
ag.weight @w : tensor<2xf32> {opt = #ag.adamw<lr = -1.0, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>}

// -----

// expected-error @+1 {{AdamW beta2 must be in [0, 1), got 1}}
ag.weight @w : tensor<2xf32> {opt = #ag.adamw<lr = 1.0, beta1 = 0.9, beta2 = 1.0, eps = 1.0e-8, weight_decay = 0.0>}

// -----

// expected-error @+1 {{AdamW beta1 must be in [0, 1), got -5.000000e-01}}
ag.weight @w : tensor<2xf32> {opt = #ag.adamw<lr = 1.0, beta1 = -0.5, beta2 = 0.9, eps = 1.0e-8, weight_decay = 0.0>}

// -----

// expected-error @+1 {{AdamW eps must be finite and > 0, got 0}}
ag.weight @w : tensor<2xf32> {opt = #ag.adamw<lr = 1.0, beta1 = 0.5, beta2 = 0.9, eps = 0.0, weight_decay = 0.0>}

// -----

// expected-error @+1 {{AdamW weight_decay must be finite and >= 0, got -1.000000e-01}}
ag.weight @w : tensor<2xf32> {opt = #ag.adamw<lr = 1.0, beta1 = 0.5, beta2 = 0.9, eps = 1.0e-8, weight_decay = -0.1>}

// -----

// Unsupported dtypes: an f16 input, an f64 loss.
// expected-error @+1 {{'ag.train_step' op input #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<2xf16>'}}
ag.train_step @t(%x: tensor<2xf16> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %l = ag.constant dense<1.0> : tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// expected-error @+1 {{'ag.train_step' op the loss (output #0) must be a scalar tensor<f32>, but found 'tensor<f64>'}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f64> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %l = ag.constant dense<1.0> : tensor<f64>
  ag.return %l : tensor<f64>
}
