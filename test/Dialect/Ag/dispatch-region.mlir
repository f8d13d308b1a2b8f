// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s

// CHECK-LABEL: ag.forward @f
// CHECK: %[[R:.*]] = ag.dispatch_region elementwise ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[ONE:.*]] = ag.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[A:.*]] = ag.add %[[X]], %[[B]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = ag.sub %[[A]], %[[ONE]] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: ag.yield %[[S]] : tensor<4x8xf32>
// CHECK: ag.return %[[R]]
ag.forward @f(%x: tensor<4x8xf32> {ag.name = "x"}, %b: tensor<8xf32> {ag.name = "b"})
    -> (tensor<4x8xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region elementwise ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%xa: tensor<4x8xf32>, %ba: tensor<8xf32>):
    %one = ag.constant dense<1.0> : tensor<f32>
    %a = ag.add %xa, %ba : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %s = ag.sub %a, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    ag.yield %s : tensor<4x8xf32>
  }
  ag.return %r : tensor<4x8xf32>
}
