// RUN: capture-opt %s -split-input-file -ag-autodiff -canonicalize -ag-pack-params | FileCheck %s
// RUN: capture-opt %s -split-input-file -ag-autodiff -canonicalize -ag-pack-params=alignment=16 | FileCheck %s --check-prefix=A16

// The weights a step trains become one flat array: each at an element
// offset aligned to the binding alignment (256 bytes = 64 f32 by default),
// in gradient order; the per-weight gradient outputs become one `grads`
// output in the same layout. A trainable weight the loss does not reach
// (@unused) is not in the pack; a frozen one (@scale) neither.

ag.weight @w trainable : tensor<3x5xf32>
ag.weight @b trainable : tensor<5xf32>
ag.weight @unused trainable : tensor<2xf32>
ag.weight @scale : tensor<5xf32>

// CHECK: ag.param_pack @step.params weights([@w, @b]) offsets([0, 64]) size(69)
// A16: ag.param_pack @step.params weights([@w, @b]) offsets([0, 16]) size(21)
// CHECK-LABEL: ag.train_step @step
// CHECK-SAME: -> (tensor<f32> {ag.name = "loss"}, tensor<2x5xf32> {ag.name = "pred"}, tensor<69xf32> {ag.name = "grads", ag.packed_grads = @step.params})
ag.train_step @step(%x: tensor<2x3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2x5xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3x5xf32>
  %b = ag.read_weight @b : tensor<5xf32>
  %s = ag.read_weight @scale : tensor<5xf32>
  %u = ag.read_weight @unused : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %h = ag.add %xw, %b : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %p = ag.mul %h, %s : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %l = ag.sum %p : tensor<2x5xf32> -> tensor<f32>
  // CHECK: %[[GB:.*]] = ag.sum %[[DH:.*]] axis = 0 : tensor<2x5xf32> -> tensor<5xf32>
  // CHECK: %[[GW:.*]] = ag.matmul %{{.*}}, %[[DH]] {transpose_a} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<3x5xf32>
  // CHECK: %[[G:.*]] = ag.pack_grads @step.params(%[[GW]], %[[GB]]) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<69xf32>
  // CHECK: ag.return %{{.*}}, %{{.*}}, %[[G]] : tensor<f32>, tensor<2x5xf32>, tensor<69xf32>
  ag.return %l, %p : tensor<f32>, tensor<2x5xf32>
}

// -----

// Two steps training disjoint weights get a pack each; a name taken by
// another symbol is not reused.

ag.weight @a trainable : tensor<2xf32>
ag.weight @c trainable : tensor<2xf32>
ag.weight @one.params : tensor<2xf32>

// CHECK: ag.param_pack @one.params.1 weights([@a]) offsets([0]) size(2)
// CHECK-LABEL: ag.train_step @one
ag.train_step @one(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %a = ag.read_weight @a : tensor<2xf32>
  %0 = ag.mul %a, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %l = ag.sum %0 : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// CHECK: ag.param_pack @two.params weights([@c]) offsets([0]) size(2)
// CHECK-LABEL: ag.train_step @two
ag.train_step @two(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %c = ag.read_weight @c : tensor<2xf32>
  %0 = ag.mul %c, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %l = ag.sum %0 : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
