// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s
// RUN: capture-opt %s -cse -canonicalize | FileCheck %s --check-prefix=KEPT

// ag.assign_weight round-trips, and -cse / -canonicalize keep it (it writes
// the weight state, and has no result to be dead by).

ag.weight @p : tensor<2x3xf32> = dense<1.0>
ag.weight @t : tensor<2x3xf32> = dense<0.0>
// CHECK-LABEL: ag.forward @soft_update
// KEPT-LABEL: ag.forward @soft_update
ag.forward @soft_update(%tau: tensor<f32> {ag.name = "tau"}) -> () {
  // CHECK: %[[P:.*]] = ag.read_weight @p
  %p = ag.read_weight @p : tensor<2x3xf32>
  // CHECK: %[[T:.*]] = ag.read_weight @t
  %t = ag.read_weight @t : tensor<2x3xf32>
  %d = ag.sub %p, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = ag.mul %d, %tau : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: %[[NEW:.*]] = ag.add %[[T]], %{{.*}}
  %new = ag.add %t, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: ag.assign_weight @t, %[[NEW]] : tensor<2x3xf32>
  // KEPT: ag.assign_weight @t, %{{.*}} : tensor<2x3xf32>
  ag.assign_weight @t, %new : tensor<2x3xf32>
  // CHECK: ag.assign_weight @p, %[[T]] : tensor<2x3xf32>
  ag.assign_weight @p, %t : tensor<2x3xf32>
  ag.return
}
