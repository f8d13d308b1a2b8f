// RUN: capture-opt %s -split-input-file -ag-form-dispatch-regions=workgroup=false | FileCheck %s
// RUN: capture-opt %s -split-input-file '-ag-form-dispatch-regions=explain workgroup=false' -verify-diagnostics -o /dev/null

// A matmul region's matmul multiplies region inputs (block arguments) only:
// the matmul template reads its operands from memory. Splat constants are
// otherwise cloned into a region; one that a matmul multiplies stays an
// input, and its other users in the region read that input too.

// The gradient of `out.mean()` through a frozen last layer: the mean's
// gradient, a splat constant, times the frozen weight, with relu' as the
// epilogue. The splat is the region's first input; relu's 0 and 1 are
// cloned in.

ag.forward @frozen_mean_grad(%w: tensor<2x7xf32> {ag.name = "w"}, %h: tensor<5x7xf32> {ag.name = "h"})
    -> (tensor<5x7xf32> {ag.name = "dh"}) {
  %dout = ag.constant dense<1.000000e-01> : tensor<5x2xf32>
  %zero = ag.constant dense<0.000000e+00> : tensor<f32>
  %one = ag.constant dense<1.000000e+00> : tensor<f32>
  %d = ag.matmul %dout, %w : (tensor<5x2xf32>, tensor<2x7xf32>) -> tensor<5x7xf32>
  %c = ag.compare le, %h, %zero : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  %mask = ag.sub %one, %c : (tensor<f32>, tensor<5x7xf32>) -> tensor<5x7xf32>
  %dh = ag.mul %d, %mask : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xf32>
  ag.return %dh : tensor<5x7xf32>
}

// CHECK-LABEL: ag.forward @frozen_mean_grad
// CHECK-SAME: (%[[W:.*]]: tensor<2x7xf32> {{.*}}, %[[H:.*]]: tensor<5x7xf32>
// CHECK: %[[DOUT:.*]] = ag.constant dense<1.000000e-01> : tensor<5x2xf32>
// CHECK: %[[R:.*]] = ag.dispatch_region matmul ins(%[[DOUT]], %[[W]], %[[H]] : tensor<5x2xf32>, tensor<2x7xf32>, tensor<5x7xf32>) -> tensor<5x7xf32> {
// CHECK-NEXT: ^bb0(%[[DA:.*]]: tensor<5x2xf32>, %[[WA:.*]]: tensor<2x7xf32>, %[[HA:.*]]: tensor<5x7xf32>):
// CHECK-NEXT: %[[ZERO:.*]] = ag.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[ONE:.*]] = ag.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M:.*]] = ag.matmul %[[DA]], %[[WA]] :
// CHECK-NEXT: %[[C:.*]] = ag.compare le, %[[HA]], %[[ZERO]]
// CHECK-NEXT: %[[MASK:.*]] = ag.sub %[[ONE]], %[[C]]
// CHECK-NEXT: %[[P:.*]] = ag.mul %[[M]], %[[MASK]]
// CHECK-NEXT: ag.yield %[[P]] : tensor<5x7xf32>
// CHECK-NEXT: }
// CHECK-NEXT: ag.return %[[R]]

// -----

// A splat right operand (transpose_b, K = 1) that the epilogue adds as
// well, broadcast along the rows: one input, read by the matmul and by the
// add, and no clone of it.

ag.forward @splat_rhs(%x: tensor<3x1xf32> {ag.name = "x"}) -> (tensor<3x3xf32> {ag.name = "y"}) {
  %c = ag.constant dense<2.500000e-01> : tensor<3x1xf32>
  %m = ag.matmul %x, %c {transpose_b} : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %a = ag.add %m, %c : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %t = ag.tanh %a : tensor<3x3xf32>
  ag.return %t : tensor<3x3xf32>
}

// CHECK-LABEL: ag.forward @splat_rhs
// CHECK-SAME: (%[[X:.*]]: tensor<3x1xf32>
// CHECK: %[[C:.*]] = ag.constant dense<2.500000e-01> : tensor<3x1xf32>
// CHECK: %[[R:.*]] = ag.dispatch_region matmul ins(%[[X]], %[[C]] : tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x3xf32> {
// CHECK-NEXT: ^bb0(%[[XA:.*]]: tensor<3x1xf32>, %[[CA:.*]]: tensor<3x1xf32>):
// CHECK-NEXT: %[[M:.*]] = ag.matmul %[[XA]], %[[CA]] {transpose_b}
// CHECK-NEXT: %[[A:.*]] = ag.add %[[M]], %[[CA]]
// CHECK-NEXT: %[[T:.*]] = ag.tanh %[[A]]
// CHECK-NEXT: ag.yield %[[T]] : tensor<3x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: ag.return %[[R]]

// -----

// Both operands one splat (transpose_a): one input, both operands its
// block argument. A splat only the epilogue reads is still cloned in.

ag.forward @splat_both(%v: tensor<7x7xf32> {ag.name = "v"}) -> (tensor<7x7xf32> {ag.name = "y"}) {
  %c = ag.constant dense<5.000000e-01> : tensor<5x7xf32>
  %k = ag.constant dense<3.000000e+00> : tensor<7x7xf32>
  %m = ag.matmul %c, %c {transpose_a} : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<7x7xf32>
  %a = ag.mul %m, %k : (tensor<7x7xf32>, tensor<7x7xf32>) -> tensor<7x7xf32>
  %s = ag.sub %a, %v : (tensor<7x7xf32>, tensor<7x7xf32>) -> tensor<7x7xf32>
  ag.return %s : tensor<7x7xf32>
}

// CHECK-LABEL: ag.forward @splat_both
// CHECK-SAME: (%[[V:.*]]: tensor<7x7xf32>
// CHECK: %[[C:.*]] = ag.constant dense<5.000000e-01> : tensor<5x7xf32>
// CHECK-NOT: ag.constant
// CHECK: %[[R:.*]] = ag.dispatch_region matmul ins(%[[C]], %[[V]] : tensor<5x7xf32>, tensor<7x7xf32>) -> tensor<7x7xf32> {
// CHECK-NEXT: ^bb0(%[[CA:.*]]: tensor<5x7xf32>, %[[VA:.*]]: tensor<7x7xf32>):
// CHECK-NEXT: %[[K:.*]] = ag.constant dense<3.000000e+00> : tensor<7x7xf32>
// CHECK-NEXT: %[[M:.*]] = ag.matmul %[[CA]], %[[CA]] {transpose_a}
// CHECK-NEXT: %[[A:.*]] = ag.mul %[[M]], %[[K]]
// CHECK-NEXT: %[[S:.*]] = ag.sub %[[A]], %[[VA]]
// CHECK-NEXT: ag.yield %[[S]] : tensor<7x7xf32>
// CHECK-NEXT: }
// CHECK-NEXT: ag.return %[[R]]

// -----

// The splat broadcast to the operand's shape (mean's gradient before
// canonicalization) and an elementwise chain on a splat: they feed the
// matmul, so each is an elementwise region of its own (the splats cloned
// into those), and the matmul region reads their results.

ag.forward @splat_producers(%w: tensor<2x7xf32> {ag.name = "w"}, %s: tensor<f32> {ag.name = "s"})
    -> (tensor<5x7xf32> {ag.name = "y"}) {
  %g = ag.constant dense<1.000000e-01> : tensor<f32>
  // expected-remark @+1 {{it feeds the region's matmul, which reads only region inputs}}
  %b = ag.broadcast_to %g : tensor<f32> -> tensor<5x2xf32>
  %k = ag.constant dense<2.000000e+00> : tensor<2x7xf32>
  %kw = ag.mul %k, %w : (tensor<2x7xf32>, tensor<2x7xf32>) -> tensor<2x7xf32>
  // expected-remark @+1 {{it feeds the region's matmul, which reads only region inputs}}
  %kn = ag.neg %kw : tensor<2x7xf32>
  %m = ag.matmul %b, %kn : (tensor<5x2xf32>, tensor<2x7xf32>) -> tensor<5x7xf32>
  %y = ag.mul %m, %s : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  ag.return %y : tensor<5x7xf32>
}

// CHECK-LABEL: ag.forward @splat_producers
// CHECK-SAME: (%[[W:.*]]: tensor<2x7xf32> {{.*}}, %[[S:.*]]: tensor<f32>
// CHECK: %[[B:.*]] = ag.dispatch_region elementwise ins( : ) -> tensor<5x2xf32> {
// CHECK-NEXT: %[[G:.*]] = ag.constant dense<1.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[BB:.*]] = ag.broadcast_to %[[G]]
// CHECK-NEXT: ag.yield %[[BB]]
// CHECK: %[[KN:.*]] = ag.dispatch_region elementwise ins(%[[W]] : tensor<2x7xf32>) -> tensor<2x7xf32> {
// CHECK-NEXT: ^bb0(%[[WA:.*]]: tensor<2x7xf32>):
// CHECK-NEXT: %[[K:.*]] = ag.constant dense<2.000000e+00> : tensor<2x7xf32>
// CHECK-NEXT: %[[KW:.*]] = ag.mul %[[K]], %[[WA]]
// CHECK-NEXT: %[[N:.*]] = ag.neg %[[KW]]
// CHECK-NEXT: ag.yield %[[N]]
// CHECK: %[[R:.*]] = ag.dispatch_region matmul ins(%[[B]], %[[KN]], %[[S]] : tensor<5x2xf32>, tensor<2x7xf32>, tensor<f32>) -> tensor<5x7xf32> {
// CHECK-NEXT: ^bb0(%[[BA:.*]]: tensor<5x2xf32>, %[[KA:.*]]: tensor<2x7xf32>, %[[SA:.*]]: tensor<f32>):
// CHECK-NEXT: %[[M:.*]] = ag.matmul %[[BA]], %[[KA]] :
// CHECK-NEXT: %[[Y:.*]] = ag.mul %[[M]], %[[SA]]
// CHECK-NEXT: ag.yield %[[Y]] : tensor<5x7xf32>
// CHECK-NEXT: }
// CHECK-NEXT: ag.return %[[R]]
