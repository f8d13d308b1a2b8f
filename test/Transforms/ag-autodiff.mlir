// RUN: capture-opt %s -split-input-file -ag-autodiff -canonicalize | FileCheck %s

// The loss's gradient w.r.t. every trainable weight it reaches becomes an
// extra output `grad/<weight>`; frozen and unreached weights get none.

ag.weight @w1 trainable : tensor<4x3xf32>
ag.weight @b1 trainable : tensor<3xf32>
ag.weight @frozen : tensor<3xf32>
ag.weight @unused trainable : tensor<2xf32>

// CHECK-LABEL: ag.train_step @train
// CHECK-SAME: -> (tensor<f32> {ag.name = "loss"}, tensor<5x3xf32> {ag.name = "pred"}, tensor<4x3xf32> {ag.grad_of = @w1, ag.name = "grad/w1"}, tensor<3xf32> {ag.grad_of = @b1, ag.name = "grad/b1"})
// CHECK-NOT: grad/frozen
// CHECK-NOT: grad/unused

ag.train_step @train(%x: tensor<5x4xf32> {ag.name = "x"}, %y: tensor<5x3xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<5x3xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w1 : tensor<4x3xf32>
  %b = ag.read_weight @b1 : tensor<3xf32>
  %f = ag.read_weight @frozen : tensor<3xf32>
  %0 = ag.matmul %x, %w : (tensor<5x4xf32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %1 = ag.add %0, %b : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  %2 = ag.tanh %1 : tensor<5x3xf32>
  %3 = ag.mul %2, %f : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  %l = ag.mse %3, %y : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<f32>
  ag.return %l, %3 : tensor<f32>, tensor<5x3xf32>
}
// The backward pass of mse -> mul -> tanh -> add -> matmul, in reverse.
// CHECK: %[[TANH:.*]] = ag.tanh
// CHECK: %[[PRED:.*]] = ag.mul %[[TANH]], %[[F:.*]] :
// CHECK: %[[LOSS:.*]] = ag.mse %[[PRED]], %[[Y:.*]] :
// CHECK: %[[DIFF:.*]] = ag.sub %[[PRED]], %[[Y]]
// CHECK: %[[DPRED:.*]] = ag.mul %[[DIFF]], %{{.*}} : (tensor<5x3xf32>, tensor<f32>)
// CHECK: %[[DTANH:.*]] = ag.mul %[[DPRED]], %[[F]]
// CHECK: %[[SQ:.*]] = ag.mul %[[TANH]], %[[TANH]]
// CHECK: %[[ONEMINUS:.*]] = ag.sub %{{.*}}, %[[SQ]]
// CHECK: %[[DPRE:.*]] = ag.mul %[[DTANH]], %[[ONEMINUS]]
// The bias gradient sums the broadcast dimension away.
// CHECK: %[[DB:.*]] = ag.sum %[[DPRE]] axis = 0 : tensor<5x3xf32> -> tensor<3xf32>
// CHECK: %[[DW:.*]] = ag.matmul %{{.*}}, %[[DPRE]] {transpose_a} : (tensor<5x4xf32>, tensor<5x3xf32>) -> tensor<4x3xf32>
// CHECK: ag.return %[[LOSS]], %[[PRED]], %[[DW]], %[[DB]]

// -----

// Two reads of one weight accumulate; constants get no gradient.
ag.weight @w trainable : tensor<3xf32>
// CHECK-LABEL: ag.train_step @twice
// CHECK-SAME: tensor<3xf32> {ag.grad_of = @w, ag.name = "grad/w"}
// The seed's broadcast of a constant folds into a splat.
// CHECK: %[[G1:.*]] = ag.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK: %[[R1:.*]] = ag.read_weight @w
// CHECK: %[[R2:.*]] = ag.read_weight @w
// CHECK-DAG: %[[G2:.*]] = ag.mul %[[G1]], %[[R2]]
// CHECK-DAG: %[[G3:.*]] = ag.mul %[[G1]], %[[R1]]
// CHECK: %[[SUM:.*]] = ag.add %{{[0-9]+}}, %{{[0-9]+}} : (tensor<3xf32>, tensor<3xf32>)
// CHECK: ag.return %{{.*}}, %[[SUM]] : tensor<f32>, tensor<3xf32>
ag.train_step @twice() -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %a = ag.read_weight @w : tensor<3xf32>
  %b = ag.read_weight @w : tensor<3xf32>
  %0 = ag.mul %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = ag.sum %0 : tensor<3xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// relu's gradient is masked by its result (threshold_backward(grad, result,
// 0), as PyTorch), not by its operand: the pre-activation keeps the relu as
// its only user, so a matmul epilogue can apply the relu.
ag.weight @wr trainable : tensor<4x3xf32>
// CHECK-LABEL: ag.train_step @relu_result
// CHECK: %[[PRE:.*]] = ag.matmul
// CHECK: %[[R:.*]] = ag.relu %[[PRE]]
// CHECK-NOT: ag.compare le, %[[PRE]]
// CHECK: %[[LE:.*]] = ag.compare le, %[[R]], %{{.*}} :
// CHECK: %[[MASK:.*]] = ag.sub %{{.*}}, %[[LE]]
// CHECK: ag.mul %{{.*}}, %[[MASK]]
ag.train_step @relu_result(%x: tensor<5x4xf32> {ag.name = "x"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @wr : tensor<4x3xf32>
  %0 = ag.matmul %x, %w : (tensor<5x4xf32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %1 = ag.relu %0 : tensor<5x3xf32>
  %l = ag.sum %1 : tensor<5x3xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
