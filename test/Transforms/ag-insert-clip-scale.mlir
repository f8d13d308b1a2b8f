// RUN: capture-opt %s -split-input-file -ag-autodiff -ag-insert-clip-scale | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-opt %s -ag-autodiff -ag-insert-clip-scale -o %t/clipped.mlir
// RUN: %python %S/../Inputs/write_npy.py %t/one.npy f32 "" 1.0
// RUN: %python %S/../Inputs/write_npy.py %t/ten.npy f32 "" 10.0
// RUN: %python %S/../Inputs/write_npy.py %t/x.npy f32 "2" 3.0,4.0
// RUN: capture-interp %t/clipped.mlir --entry clipped --precision f64 --input x=%t/x.npy --input max_grad_norm=%t/one.npy | FileCheck %s --check-prefix=CLIP
// RUN: capture-interp %t/clipped.mlir --entry clipped --precision f64 --input x=%t/x.npy --input max_grad_norm=%t/ten.npy | FileCheck %s --check-prefix=NOCLIP

// The global norm over all gradients becomes output `grad_norm`; with
// max_grad_norm, a runtime input `max_grad_norm` scales every gradient by
// min(1, max_norm / (norm + 1e-6)).

ag.weight @w trainable : tensor<2xf32> = #ag.init<zeros>
ag.weight @v trainable : tensor<f32> = dense<0.0>

// CHECK-LABEL: ag.train_step @clipped
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32> {ag.name = "x"}, %[[MAX:.*]]: tensor<f32> {ag.hyper = "max_grad_norm", ag.name = "max_grad_norm"})
// CHECK-SAME: tensor<2xf32> {ag.grad_of = @w, ag.name = "grad/w"}, tensor<f32> {ag.grad_of = @v, ag.name = "grad/v"}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"})
// CHECK: %[[SQW:.*]] = ag.mul %[[GW:.*]], %[[GW]] : (tensor<2xf32>, tensor<2xf32>)
// CHECK: %[[SW:.*]] = ag.sum %[[SQW]] : tensor<2xf32> -> tensor<f32>
// CHECK: %[[SQV:.*]] = ag.mul %[[GV:.*]], %[[GV]] : (tensor<f32>, tensor<f32>)
// CHECK: %[[SV:.*]] = ag.sum %[[SQV]] : tensor<f32> -> tensor<f32>
// CHECK: %[[TOT:.*]] = ag.add %[[SW]], %[[SV]]
// CHECK: %[[NORM:.*]] = ag.sqrt %[[TOT]]
// CHECK: %[[EPS:.*]] = ag.constant dense<9.99999997E-7> : tensor<f32>
// CHECK: %[[DEN:.*]] = ag.add %[[NORM]], %[[EPS]]
// CHECK: %[[COEF:.*]] = ag.div %[[MAX]], %[[DEN]]
// CHECK: %[[ONE:.*]] = ag.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[SCALE:.*]] = ag.minimum %[[COEF]], %[[ONE]]
// CHECK: %[[CW:.*]] = ag.mul %[[GW]], %[[SCALE]]
// CHECK: %[[CV:.*]] = ag.mul %[[GV]], %[[SCALE]]
// CHECK: ag.return %{{.*}}, %[[CW]], %[[CV]], %[[NORM]]
ag.train_step @clipped(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                max_grad_norm = 0.5 : f32} {
  // loss = sum(w * x) + v: grad/w = x = [3, 4], grad/v = 1, norm = sqrt(26).
  %w = ag.read_weight @w : tensor<2xf32>
  %v = ag.read_weight @v : tensor<f32>
  %0 = ag.mul %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = ag.sum %0 : tensor<2xf32> -> tensor<f32>
  %l = ag.add %1, %v : (tensor<f32>, tensor<f32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}

// The limit is the runtime input (1.0 here), not the attribute's 0.5:
// coef = 1 / (sqrt(26) + 1e-6).
// CLIP: output grad/w [2]: 0.588348 0.784464
// CLIP: output grad/v []: 0.196116
// CLIP: output grad_norm []: 5.09902
// A limit above the norm leaves the gradients alone.
// NOCLIP: output grad/w [2]: 3 4
// NOCLIP: output grad/v []: 1
// NOCLIP: output grad_norm []: 5.09902

// -----

// Without max_grad_norm the norm is still an output (non-finite norms refuse
// the update), and nothing is scaled.
ag.weight @u trainable : tensor<2xf32>
// CHECK-LABEL: ag.train_step @unclipped
// CHECK-SAME: (%{{.*}}: tensor<2xf32> {ag.name = "x"})
// CHECK-SAME: {ag.grad_norm, ag.name = "grad_norm"}
// CHECK-NOT: ag.minimum
// CHECK: %[[N:.*]] = ag.sqrt
// CHECK-NEXT: ag.return %{{.*}}, %{{.*}}, %[[N]]
ag.train_step @unclipped(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @u : tensor<2xf32>
  %0 = ag.mul %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %l = ag.sum %0 : tensor<2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// After ag-pack-params the norm is ONE reduction over the flat gradients,
// and the flat array is scaled as a whole.
ag.weight @p trainable : tensor<2xf32>
ag.weight @q trainable : tensor<3xf32>
ag.param_pack @packed.params weights([@p, @q]) offsets([0, 64]) size(67)
// CHECK-LABEL: ag.train_step @packed
// CHECK-SAME: -> (tensor<f32> {ag.name = "loss"}, tensor<67xf32> {ag.name = "grads", ag.packed_grads = @packed.params}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"})
// CHECK: %[[G:.*]] = ag.pack_grads
// CHECK: %[[SQ:.*]] = ag.mul %[[G]], %[[G]] : (tensor<67xf32>, tensor<67xf32>)
// CHECK-NEXT: %[[S:.*]] = ag.sum %[[SQ]] : tensor<67xf32> -> tensor<f32>
// CHECK-NEXT: %[[N:.*]] = ag.sqrt %[[S]]
// CHECK-NOT: ag.sum
// CHECK: %[[SCALE:.*]] = ag.minimum
// CHECK-NEXT: %[[C:.*]] = ag.mul %[[G]], %[[SCALE]] : (tensor<67xf32>, tensor<f32>) -> tensor<67xf32>
// CHECK-NEXT: ag.return %{{.*}}, %[[C]], %[[N]]
ag.train_step @packed(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<67xf32> {ag.name = "grads", ag.packed_grads = @packed.params})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                max_grad_norm = 1.0 : f32} {
  %gq = ag.constant dense<1.0> : tensor<3xf32>
  %g = ag.pack_grads @packed.params(%x, %gq) : (tensor<2xf32>, tensor<3xf32>) -> tensor<67xf32>
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  ag.return %l, %g : tensor<f32>, tensor<67xf32>
}
