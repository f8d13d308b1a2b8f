// RUN: capture-opt %s -split-input-file -verify-diagnostics

// ag.param_pack

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.param_pack' op needs at least one weight}}
ag.param_pack @p weights([]) offsets([]) size(2)

// -----

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.param_pack' op has 1 weights but 2 offsets}}
ag.param_pack @p weights([@w]) offsets([0, 4]) size(8)

// -----

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.param_pack' op lists @w more than once}}
ag.param_pack @p weights([@w, @w]) offsets([0, 4]) size(8)

// -----

ag.weight @w trainable : tensor<2xf32>
ag.weight @v trainable : tensor<2xf32>
// expected-error @+1 {{'ag.param_pack' op offsets must be non-negative and increasing, but offset #1 is 0}}
ag.param_pack @p weights([@w, @v]) offsets([0, 0]) size(8)

// -----

ag.weight @w trainable : tensor<2xf32>
// expected-error @+1 {{'ag.param_pack' op size 0 does not cover the last offset 0}}
ag.param_pack @p weights([@w]) offsets([0]) size(0)

// -----

// expected-error @+1 {{'ag.param_pack' op lists @nope, which is not an ag.weight of this module}}
ag.param_pack @p weights([@nope]) offsets([0]) size(2)

// -----

ag.weight @w : tensor<2xf32>
// expected-error @+1 {{'ag.param_pack' op lists @w, which is not trainable: a pack holds only the weights a training step updates}}
ag.param_pack @p weights([@w]) offsets([0]) size(2)

// -----

ag.weight @w trainable : tensor<4xf32>
ag.weight @v trainable : tensor<2xf32>
// expected-error @+1 {{'ag.param_pack' op @w ('tensor<4xf32>') at offset 0 overlaps the next weight or the end of the pack at element 2}}
ag.param_pack @p weights([@w, @v]) offsets([0, 2]) size(4)

// -----

// ag.pack_grads

ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(2)
ag.forward @f(%g: tensor<2xf32> {ag.name = "g"}) -> (tensor<2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.pack_grads' op refers to @q, which is not an ag.param_pack of this module}}
  %p = ag.pack_grads @q(%g) : (tensor<2xf32>) -> tensor<2xf32>
  ag.return %p : tensor<2xf32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(2)
ag.forward @f(%g: tensor<2xf32> {ag.name = "g"}) -> (tensor<2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.pack_grads' op packs 2 gradients, but @p has 1 weights}}
  %p = ag.pack_grads @p(%g, %g) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  ag.return %p : tensor<2xf32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(2)
ag.forward @f(%g: tensor<3xf32> {ag.name = "g"}) -> (tensor<2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.pack_grads' op gradient #0 has type 'tensor<3xf32>', but its weight @w is 'tensor<2xf32>'}}
  %p = ag.pack_grads @p(%g) : (tensor<3xf32>) -> tensor<2xf32>
  ag.return %p : tensor<2xf32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(4)
ag.forward @f(%g: tensor<2xf32> {ag.name = "g"}) -> (tensor<2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.pack_grads' op result must be 'tensor<4xf32>' (the size of @p), but is 'tensor<2xf32>'}}
  %p = ag.pack_grads @p(%g) : (tensor<2xf32>) -> tensor<2xf32>
  ag.return %p : tensor<2xf32>
}

// -----

// ag.apply_adamw

ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(2)
ag.forward @f(%g: tensor<2x1xf32> {ag.name = "g"}, %n: tensor<f32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<f32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.apply_adamw' op grads must be a flat 1-D tensor, but is 'tensor<2x1xf32>'}}
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<2x1xf32>, tensor<f32>, tensor<7xf32>
  ag.return %n : tensor<f32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(2)
ag.forward @f(%g: tensor<2xf32> {ag.name = "g"}, %n: tensor<1xf32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<1xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.apply_adamw' op grad_norm must be a scalar tensor<f32>, but is 'tensor<1xf32>'}}
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<2xf32>, tensor<1xf32>, tensor<7xf32>
  ag.return %n : tensor<1xf32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(2)
ag.forward @f(%g: tensor<2xf32> {ag.name = "g"}, %n: tensor<f32> {ag.name = "n"}, %h: tensor<5xf32> {ag.name = "h"}) -> (tensor<f32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.apply_adamw' op hyper must be tensor<7xf32> (lr, beta1, beta2, eps, weight_decay and the two bias corrections), or that per param group, but is 'tensor<5xf32>'}}
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<2xf32>, tensor<f32>, tensor<5xf32>
  ag.return %n : tensor<f32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(2)
ag.forward @f(%g: tensor<2xf32> {ag.name = "g"}, %n: tensor<f32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<f32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.apply_adamw' op refers to @q, which is not an ag.param_pack of this module}}
  ag.apply_adamw @q grads(%g) grad_norm(%n) hyper(%h) : tensor<2xf32>, tensor<f32>, tensor<7xf32>
  ag.return %n : tensor<f32>
}

// -----

ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(4)
ag.forward @f(%g: tensor<2xf32> {ag.name = "g"}, %n: tensor<f32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<f32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.apply_adamw' op grads has 2 elements, but @p has 4}}
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<2xf32>, tensor<f32>, tensor<7xf32>
  ag.return %n : tensor<f32>
}
