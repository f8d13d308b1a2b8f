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

// A weight gradient with its bias gradient: the column sums of the
// transposed left operand as a second result.
// CHECK-LABEL: ag.forward @wgrad
// CHECK: %[[R:.*]]:2 = ag.dispatch_region matmul ins(%{{.*}}, %{{.*}} : tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>, tensor<3xf32> {
// CHECK: ^bb0(%[[A:.*]]: tensor<5x3xf32>, %[[B:.*]]: tensor<5x4xf32>):
// CHECK: %[[M:.*]] = ag.matmul %[[A]], %[[B]] {transpose_a}
// CHECK: %[[S:.*]] = ag.sum %[[A]] axis = 0
// CHECK: ag.yield %[[M]], %[[S]] : tensor<3x4xf32>, tensor<3xf32>
// CHECK: ag.return %[[R]]#0, %[[R]]#1
ag.forward @wgrad(%x: tensor<5x3xf32> {ag.name = "x"}, %y: tensor<5x4xf32> {ag.name = "y"})
    -> (tensor<3x4xf32> {ag.name = "w"}, tensor<3xf32> {ag.name = "b"}) {
  %r:2 = ag.dispatch_region matmul ins(%x, %y : tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>, tensor<3xf32> {
  ^bb0(%a: tensor<5x3xf32>, %b: tensor<5x4xf32>):
    %m = ag.matmul %a, %b {transpose_a} : (tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
    %s = ag.sum %a axis = 0 : tensor<5x3xf32> -> tensor<3xf32>
    ag.yield %m, %s : tensor<3x4xf32>, tensor<3xf32>
  }
  ag.return %r#0, %r#1 : tensor<3x4xf32>, tensor<3xf32>
}

// A gradient norm with its poison: the epilogue reads a single-element
// input besides the reduced value.
// CHECK-LABEL: ag.forward @norm
// CHECK: %[[R:.*]] = ag.dispatch_region reduction ins(%{{.*}}, %{{.*}} : tensor<6xf32>, tensor<f32>) -> tensor<f32> {
// CHECK: ^bb0(%[[G:.*]]: tensor<6xf32>, %[[P:.*]]: tensor<f32>):
// CHECK: %[[SQ:.*]] = ag.mul %[[G]], %[[G]]
// CHECK: %[[S:.*]] = ag.sum %[[SQ]]
// CHECK: %[[N:.*]] = ag.sqrt %[[S]]
// CHECK: %[[T:.*]] = ag.add %[[N]], %[[P]]
// CHECK: ag.yield %[[T]] : tensor<f32>
ag.forward @norm(%g: tensor<6xf32> {ag.name = "g"}, %p: tensor<f32> {ag.name = "p"})
    -> (tensor<f32> {ag.name = "n"}) {
  %r = ag.dispatch_region reduction ins(%g, %p : tensor<6xf32>, tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<6xf32>, %b: tensor<f32>):
    %sq = ag.mul %a, %a : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    %s = ag.sum %sq : tensor<6xf32> -> tensor<f32>
    %n = ag.sqrt %s : tensor<f32>
    %t = ag.add %n, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    ag.yield %t : tensor<f32>
  }
  ag.return %r : tensor<f32>
}
