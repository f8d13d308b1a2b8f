// RUN: capture-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.train_step' op param group 1 has decoupled = false, but the step's optimizer has decoupled = true: one optimizer class updates every group}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                param_groups = [#ag.param_group<[@w], #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0, decoupled = false>>]} {
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.train_step' op @w is in two param groups}}
ag.train_step @t(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                param_groups = [#ag.param_group<[@w], #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>>,
                                #ag.param_group<[@w], #ag.adamw<lr = 2.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>>]} {
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// expected-error @+1 {{a param group lists at least one weight}}
"test.use"() {g = #ag.param_group<[], #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>>} : () -> ()

// -----

// expected-error @+1 {{a param group lists @w twice}}
"test.use"() {g = #ag.param_group<[@w, @w], #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>>} : () -> ()

// -----

// expected-error @+1 {{a param group's weights are symbols (@w), got 3 : i64}}
"test.use"() {g = #ag.param_group<[3], #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>>} : () -> ()

// -----

ag.weight @w trainable : tensor<2xf32>
ag.weight @b trainable : tensor<2xf32>
// expected-error @+1 {{'ag.param_pack' op weight #1 starts group 1 at offset 2, which is not a multiple of 4 elements (one update vector holds one group)}}
ag.param_pack @p weights([@w, @b]) offsets([0, 2]) size(4) groups([0, 1])

// -----

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.param_pack' op has 1 weights but 2 groups}}
ag.param_pack @p weights([@w]) offsets([0]) size(2) groups([0, 1])

// -----

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.param_pack' op groups must be >= 0, but weight #0's is -1}}
ag.param_pack @p weights([@w]) offsets([0]) size(2) groups([-1])

// -----

ag.weight @w trainable : tensor<2xf32>
ag.weight @b trainable : tensor<2xf32>
ag.param_pack @p weights([@w, @b]) offsets([0, 4]) size(6) groups([0, 1])
ag.forward @f(%g: tensor<6xf32> {ag.name = "g"}, %n: tensor<f32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<f32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.apply_adamw' op hyper has 7 values, but @p has 2 param groups (7 values each)}}
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<6xf32>, tensor<f32>, tensor<7xf32>
  ag.return %n : tensor<f32>
}
