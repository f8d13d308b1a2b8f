// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s

// A training-step entry round-trips with its optimizer and clipping limit.
// `decoupled` (AdamW or Adam's L2 weight decay) is printed only when false,
// so `decoupled = true` reads back as the form without it.

ag.weight @w trainable : tensor<4x2xf32>

// CHECK-LABEL: ag.train_step @train
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32> {ag.name = "x"}, %[[Y:.*]]: tensor<8x2xf32> {ag.name = "y"})
// CHECK-SAME: -> (tensor<f32> {ag.name = "loss"}, tensor<8x2xf32> {ag.name = "pred"})
// CHECK-SAME: max_grad_norm = 5.000000e-01 : f32
// CHECK-SAME: optimizer = #ag.adamw<lr = 3.000000e-04, beta1 = 9.000000e-01, beta2 = 0.99899999999999999, eps = 1.000000e-08, weight_decay = 1.000000e-02>
ag.train_step @train(%x: tensor<8x4xf32> {ag.name = "x"}, %y: tensor<8x2xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<8x2xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 3.0e-4, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>,
                max_grad_norm = 0.5 : f32} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  // CHECK: %[[P:.*]] = ag.matmul %[[X]]
  %p = ag.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  // CHECK: %[[L:.*]] = ag.mse %[[P]], %[[Y]]
  %l = ag.mse %p, %y : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<f32>
  // CHECK: ag.return %[[L]], %[[P]] : tensor<f32>, tensor<8x2xf32>
  ag.return %l, %p : tensor<f32>, tensor<8x2xf32>
}

// CHECK-LABEL: ag.train_step @no_clip
// CHECK-NOT: max_grad_norm
ag.train_step @no_clip(%x: tensor<8x4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %p = ag.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %l = ag.mean %p : tensor<8x2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// CHECK-LABEL: ag.train_step @adam_l2
// CHECK-SAME: optimizer = #ag.adamw<lr = 1.000000e-03, beta1 = 9.000000e-01, beta2 = 0.99899999999999999, eps = 1.000000e-08, weight_decay = 1.000000e-01, decoupled = false>}
ag.train_step @adam_l2(%x: tensor<8x4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<decoupled = false, lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1>} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %p = ag.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %l = ag.mean %p : tensor<8x2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// CHECK-LABEL: ag.train_step @adamw_explicit
// CHECK-SAME: optimizer = #ag.adamw<lr = 1.000000e-03, beta1 = 9.000000e-01, beta2 = 0.99899999999999999, eps = 1.000000e-08, weight_decay = 1.000000e-01>}
ag.train_step @adamw_explicit(%x: tensor<8x4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1, decoupled = true>} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %p = ag.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %l = ag.mean %p : tensor<8x2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
