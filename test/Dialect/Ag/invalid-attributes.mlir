// RUN: capture-opt %s -split-input-file -verify-diagnostics

// Every ag op and entry refuses attributes it does not define, naming the
// attribute, the nearest valid name and the ones it takes: a typo never
// compiles into a different computation (`{tranpose_b}` would be x·W).

ag.forward @f(%x: tensor<2x2xf32> {ag.name = "x"}) -> (tensor<2x2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.matmul' op has no attribute 'tranpose_b' (did you mean 'transpose_b'?); it takes transpose_a, transpose_b}}
  %y = ag.matmul %x, %x {tranpose_b} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  ag.return %y : tensor<2x2xf32>
}

// -----

ag.forward @f(%x: tensor<2x2xf32> {ag.name = "x"}) -> (tensor<2x2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.relu' op has no attribute 'inplace'; it takes none}}
  %y = ag.relu %x {inplace} : tensor<2x2xf32>
  ag.return %y : tensor<2x2xf32>
}

// -----

ag.forward @f(%x: tensor<2x2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.sum' op has no attribute 'keep_dim' (did you mean 'keepdim'?); it takes axis, keepdim}}
  %y = ag.sum %x axis = 1 {keep_dim} : tensor<2x2xf32> -> tensor<2xf32>
  ag.return %y : tensor<2xf32>
}

// -----

// The dialect's own discardable attributes are names too.
ag.forward @f(%x: tensor<2x2xf32> {ag.name = "x"}) -> (tensor<2x2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.exp' op has no attribute 'ag.plcaes' (did you mean 'ag.places'?); it takes none}}
  %y = ag.exp %x {ag.plcaes = [#ag.place<scratch, 0>]} : tensor<2x2xf32>
  ag.return %y : tensor<2x2xf32>
}

// -----

// An entry: a misspelt clip limit would silently train without clipping.
// expected-error @+1 {{'ag.train_step' op has no attribute 'max_grad_nrom' (did you mean 'max_grad_norm'?); it takes max_grad_norm, optimizer}}
ag.train_step @t(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>, max_grad_nrom = 0.5 : f32} {
  %l = ag.sum %x : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// Nothing near: no guess, the valid names.
ag.forward @f(%x: tensor<2x2xf32> {ag.name = "x"}) -> (tensor<2x2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.matmul' op has no attribute 'precision'; it takes transpose_a, transpose_b}}
  %y = ag.matmul %x, %x {precision = "high"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  ag.return %y : tensor<2x2xf32>
}

// -----

// Inside a region body too.
ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %y = ag.dispatch_region elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'ag.tanh' op has no attribute 'approx'; it takes none}}
    %t = ag.tanh %a {approx} : tensor<4xf32>
    ag.yield %t : tensor<4xf32>
  }
  ag.return %y : tensor<4xf32>
}

// -----

// The fields of #ag.adamw: a misspelt one is named, with the valid ones.
// expected-error @+2 {{#ag.adamw has no field 'beta_1' (did you mean 'beta1'?); its fields are lr, beta1, beta2, eps, weight_decay, decoupled}}
ag.train_step @t(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta_1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %l = ag.sum %x : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// expected-error @+2 {{#ag.adamw sets 'lr' twice}}
ag.train_step @t(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, lr = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %l = ag.sum %x : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// Fields in any order; every one is needed but `decoupled`.
// expected-error @+2 {{#ag.adamw is missing 'weight_decay'; its fields are lr, beta1, beta2, eps, weight_decay, decoupled}}
ag.train_step @t(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<eps = 1.0e-8, beta2 = 0.999, lr = 1.0e-2, beta1 = 0.9, decoupled = false>} {
  %l = ag.sum %x : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// `decoupled` is a boolean: a number is not read as one.
// expected-error @+2 {{#ag.adamw decoupled must be true (AdamW's decoupled weight decay) or false (Adam's L2 term in the gradient)}}
ag.train_step @t(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1, decoupled = 0>} {
  %l = ag.sum %x : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// expected-error @+2 {{#ag.adamw sets 'decoupled' twice}}
ag.train_step @t(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<decoupled = false, lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1, decoupled = true>} {
  %l = ag.sum %x : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// expected-error @+1 {{#ag.buffer_plan has no field 'weight' (did you mean 'weights'?); its fields are alignment, weights, optimizer, constants}}
module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 64, weight = 0, optimizer = 0, constants = 0>} {
}
