// RUN: capture-opt %s -split-input-file -ag-autodiff | FileCheck %s
// RUN: capture-opt %s -split-input-file -canonicalize -cse | FileCheck %s --check-prefix=KEPT

// ag.stop_gradient (PyTorch's detach() / no_grad) passes no gradient to its
// operand; ag-autodiff erases every one once the gradients are built, in
// training steps and forward entries alike. No fold or canonicalization
// removes it before ag-autodiff, which would change the gradients (KEPT).

// A weight used directly and through ag.stop_gradient: the gradient comes
// from the direct use only (one term, no sum of two), and the detached use
// reads the weight itself once the op is erased.
ag.weight @w trainable : tensor<3xf32>
// CHECK-LABEL: ag.train_step @mixed
// CHECK-SAME: tensor<3xf32> {ag.grad_of = @w, ag.name = "grad/w"}
// CHECK-NOT: ag.stop_gradient
// CHECK: %[[W:.*]] = ag.read_weight @w
// CHECK-NEXT: %[[DIRECT:.*]] = ag.mul %[[W]], %[[X:.*]] :
// CHECK-NEXT: %[[DETACHED:.*]] = ag.mul %[[W]], %[[X]] :
// CHECK-NEXT: %[[SUM:.*]] = ag.add %[[DIRECT]], %[[DETACHED]]
// CHECK-NEXT: %[[LOSS:.*]] = ag.sum %[[SUM]]
// The backward pass: the seed, broadcast by the sum, then the add passes it
// to both terms, and only the direct mul's VJP is built (its operands'
// gradients: %x's, unused, and @w's, which is all of grad/w).
// CHECK-NEXT: %[[SEED:.*]] = ag.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = ag.reshape %[[SEED]]
// CHECK-NEXT: %[[G:.*]] = ag.broadcast_to %[[R]]
// The two products' order is the C++ compiler's (argument evaluation).
// CHECK-DAG: ag.mul %[[G]], %[[W]]
// CHECK-DAG: %[[GW:.*]] = ag.mul %[[G]], %[[X]]
// CHECK-NOT: ag.add
// CHECK: ag.return %[[LOSS]], %[[GW]] : tensor<f32>, tensor<3xf32>
// KEPT-LABEL: ag.train_step @mixed
// KEPT: %[[W:.*]] = ag.read_weight @w
// KEPT: ag.stop_gradient %[[W]] : tensor<3xf32>
ag.train_step @mixed(%x: tensor<3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3xf32>
  %d = ag.stop_gradient %w : tensor<3xf32>
  %0 = ag.mul %w, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = ag.mul %d, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = ag.add %0, %1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = ag.sum %2 : tensor<3xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// A trainable weight the loss reaches only through ag.stop_gradient gets no
// gradient, as a trainable weight the loss does not read (ag-autodiff.mlir's
// @unused): no grad/u output, so no update. Its value still scales @v's
// gradient.
ag.weight @u trainable : tensor<3xf32>
ag.weight @v trainable : tensor<3xf32>
// CHECK-LABEL: ag.train_step @only_detached
// CHECK-SAME: -> (tensor<f32> {ag.name = "loss"}, tensor<3xf32> {ag.grad_of = @v, ag.name = "grad/v"}) attributes
// CHECK-NOT: ag.stop_gradient
// CHECK: %[[U:.*]] = ag.read_weight @u
// CHECK-NEXT: %[[V:.*]] = ag.read_weight @v
// CHECK-NEXT: %[[P:.*]] = ag.mul %[[U]], %[[V]] :
// CHECK-NEXT: %[[LOSS:.*]] = ag.sum %[[P]]
// CHECK-NEXT: %[[SEED:.*]] = ag.constant
// CHECK-NEXT: %[[R:.*]] = ag.reshape %[[SEED]]
// CHECK-NEXT: %[[G:.*]] = ag.broadcast_to %[[R]]
// CHECK-DAG: %[[GV:.*]] = ag.mul %[[G]], %[[U]]
// CHECK-DAG: ag.mul %[[G]], %[[V]]
// CHECK-NOT: ag.add
// CHECK: ag.return %[[LOSS]], %[[GV]] : tensor<f32>, tensor<3xf32>
// KEPT-LABEL: ag.train_step @only_detached
// KEPT: %[[U:.*]] = ag.read_weight @u
// KEPT: ag.stop_gradient %[[U]] : tensor<3xf32>
ag.train_step @only_detached() -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %u = ag.read_weight @u : tensor<3xf32>
  %v = ag.read_weight @v : tensor<3xf32>
  %d = ag.stop_gradient %u : tensor<3xf32>
  %0 = ag.mul %d, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = ag.sum %0 : tensor<3xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// A forward entry (nothing to differentiate) loses its ag.stop_gradient
// too, also one whose result is an output.
ag.weight @w : tensor<3xf32>
// CHECK-LABEL: ag.forward @predict
// CHECK-NOT: ag.stop_gradient
// CHECK: %[[W:.*]] = ag.read_weight @w
// CHECK-NEXT: %[[Y:.*]] = ag.mul %[[X:.*]], %[[W]]
// CHECK-NEXT: ag.return %[[Y]], %[[W]] : tensor<3xf32>, tensor<3xf32>
// KEPT-LABEL: ag.forward @predict
// KEPT: ag.stop_gradient
ag.forward @predict(%x: tensor<3xf32> {ag.name = "x"}) -> (tensor<3xf32> {ag.name = "y"}, tensor<3xf32> {ag.name = "w"}) {
  %w = ag.read_weight @w : tensor<3xf32>
  %d = ag.stop_gradient %w : tensor<3xf32>
  %y = ag.mul %x, %d : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %e = ag.stop_gradient %w : tensor<3xf32>
  ag.return %y, %e : tensor<3xf32>, tensor<3xf32>
}
