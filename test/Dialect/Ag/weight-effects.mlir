// RUN: capture-opt %s -split-input-file -cse -canonicalize | FileCheck %s

// ag.read_weight reads the module's weight state and ag.apply_adamw writes
// it: -cse and -canonicalize keep a read that follows an update apart from
// the read before it (it sees the updated weight), merge reads with no
// update between them, and drop reads nobody uses.

ag.weight @w trainable : tensor<4xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(4)
ag.forward @after(%g: tensor<4xf32> {ag.name = "g"}, %n: tensor<f32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<4xf32> {ag.name = "before"}, tensor<4xf32> {ag.name = "after"}) {
  %a = ag.read_weight @w : tensor<4xf32>
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<4xf32>, tensor<f32>, tensor<7xf32>
  %b = ag.read_weight @w : tensor<4xf32>
  ag.return %a, %b : tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: ag.forward @after
// CHECK: %[[A:.*]] = ag.read_weight @w
// CHECK-NEXT: ag.apply_adamw @p
// CHECK-NEXT: %[[B:.*]] = ag.read_weight @w
// CHECK-NEXT: ag.return %[[A]], %[[B]]

// -----

ag.weight @w trainable : tensor<4xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(4)
ag.forward @between(%g: tensor<4xf32> {ag.name = "g"}, %n: tensor<f32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %a = ag.read_weight @w : tensor<4xf32>
  %b = ag.read_weight @w : tensor<4xf32>
  %unused = ag.read_weight @w : tensor<4xf32>
  %y = ag.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<4xf32>, tensor<f32>, tensor<7xf32>
  ag.return %y : tensor<4xf32>
}
// CHECK-LABEL: ag.forward @between
// CHECK: %[[R:.*]] = ag.read_weight @w
// CHECK-NOT: ag.read_weight
// CHECK: ag.add %[[R]], %[[R]]
// CHECK: ag.apply_adamw
// CHECK-NOT: ag.read_weight

// -----

// A training step after ag-split-update: the output read of @w precedes
// the update; a second read after it stays a second read.
ag.weight @w trainable : tensor<4xf32> = dense<5.000000e-01>
ag.param_pack @t.params weights([@w]) offsets([0]) size(4)
ag.train_step @t(%x: tensor<4xf32> {ag.name = "x"}, %hyper: tensor<7xf32> {ag.hyper = "adamw", ag.name = "adamw"}) -> (tensor<f32> {ag.name = "loss"}, tensor<4xf32> {ag.name = "w"}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"}, tensor<4xf32> {ag.name = "w_after"}) attributes {optimizer = #ag.adamw<lr = 1.000000e-02, beta1 = 9.000000e-01, beta2 = 0.999, eps = 1.000000e-08, weight_decay = 0.000000e+00>} {
  %w = ag.read_weight @w : tensor<4xf32>
  %p = ag.mul %w, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = ag.sum %p : tensor<4xf32> -> tensor<f32>
  %g = ag.pack_grads @t.params(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %sq = ag.mul %g, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = ag.sum %sq : tensor<4xf32> -> tensor<f32>
  %n = ag.sqrt %s : tensor<f32>
  ag.apply_adamw @t.params grads(%g) grad_norm(%n) hyper(%hyper) : tensor<4xf32>, tensor<f32>, tensor<7xf32>
  %w2 = ag.read_weight @w : tensor<4xf32>
  ag.return %l, %w, %n, %w2 : tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>
}
// CHECK-LABEL: ag.train_step @t
// CHECK: %[[W:.*]] = ag.read_weight @w
// CHECK: ag.apply_adamw @t.params
// CHECK-NEXT: %[[W2:.*]] = ag.read_weight @w
// CHECK-NEXT: ag.return %{{.*}}, %[[W]], %{{.*}}, %[[W2]]
