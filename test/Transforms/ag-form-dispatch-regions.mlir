// RUN: capture-opt %s -split-input-file -ag-form-dispatch-regions | FileCheck %s
// RUN: capture-opt %s -split-input-file -ag-form-dispatch-regions=explain -verify-diagnostics -o /dev/null

// A Linear layer's epilogue and tanh' chain: bias add and tanh form one
// region; square, 1 - x and the product form another. What did not join,
// and why, is what `explain` reports.

ag.weight @b : tensor<8xf32> = dense<0.5>
ag.forward @layer(%x: tensor<4x8xf32> {ag.name = "x"}, %w: tensor<8x8xf32> {ag.name = "w"})
    -> (tensor<4x8xf32> {ag.name = "y"}, tensor<4x8xf32> {ag.name = "h"}) {
  %b = ag.read_weight @b : tensor<8xf32>
  %one = ag.constant dense<1.0> : tensor<4x8xf32>
  // expected-remark @+1 {{not fused into the dispatch region of 'ag.tanh' at}}
  %m = ag.matmul %x, %w {transpose_b} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{its shape [8] differs from the region's [4, 8] (it would be recomputed for every broadcast element)}}
  %bb = ag.mul %b, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %a = ag.add %m, %bb : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{its result is also used by 'ag.return' outside the region}}
  %t = ag.tanh %a : tensor<4x8xf32>
  %s = ag.square %t : tensor<4x8xf32>
  %d = ag.sub %one, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = ag.mul %d, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  ag.return %e, %t : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: ag.forward @layer
// CHECK: %[[B:.*]] = ag.read_weight @b
// CHECK: %[[M:.*]] = ag.matmul
// An op with nothing to fuse still gets a region of its own.
// CHECK: %[[BB:.*]] = ag.dispatch_region elementwise ins(%[[B]] : tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[BARG:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[SQ:.*]] = ag.mul %[[BARG]], %[[BARG]]
// CHECK-NEXT: ag.yield %[[SQ]] : tensor<8xf32>
// CHECK: %[[T:.*]] = ag.dispatch_region elementwise ins(%[[M]], %[[BB]] : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[MA:.*]]: tensor<4x8xf32>, %[[BA:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[ADD:.*]] = ag.add %[[MA]], %[[BA]]
// CHECK-NEXT: %[[TANH:.*]] = ag.tanh %[[ADD]]
// CHECK-NEXT: ag.yield %[[TANH]]
// The splat constant is cloned into the region, not an input.
// CHECK: %[[E:.*]] = ag.dispatch_region elementwise ins(%[[T]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[TA:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[ONE:.*]] = ag.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = ag.square %[[TA]]
// CHECK-NEXT: %[[D:.*]] = ag.sub %[[ONE]], %[[S]]
// CHECK-NEXT: %[[P:.*]] = ag.mul %[[D]], %[[TA]]
// CHECK-NEXT: ag.yield %[[P]]
// CHECK-NOT: ag.constant
// CHECK: ag.return %[[E]], %[[T]]

// -----

// A producer used twice joins once both users are in the region; a
// single-element producer is recomputed per element rather than stored; a
// probed value stays outside (the probe reads it).

ag.forward @shared(%x: tensor<16xf32> {ag.name = "x"}, %s: tensor<f32> {ag.name = "s"})
    -> (tensor<16xf32> {ag.name = "y"}) {
  %e = ag.exp %x : tensor<16xf32>
  %a = ag.mul %e, %x : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %b = ag.add %e, %x : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %ss = ag.square %s : tensor<f32>
  %c = ag.div %a, %b : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %d = ag.mul %c, %ss : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %p = ag.probe "d" %d : tensor<16xf32>
  %n = ag.neg %p : tensor<16xf32>
  ag.return %n : tensor<16xf32>
}

// CHECK-LABEL: ag.forward @shared
// CHECK-SAME: (%[[X:.*]]: tensor<16xf32> {{.*}}, %[[S:.*]]: tensor<f32>
// CHECK: %[[R:.*]] = ag.dispatch_region elementwise ins(%[[X]], %[[S]] : tensor<16xf32>, tensor<f32>) -> tensor<16xf32> {
// CHECK: ag.exp
// CHECK: ag.mul
// CHECK: ag.add
// CHECK: ag.square
// CHECK: ag.div
// CHECK: ag.mul
// CHECK: ag.yield
// CHECK: %[[P:.*]] = ag.probe "d" %[[R]]
// CHECK: ag.dispatch_region elementwise ins(%[[P]] : tensor<16xf32>)
// CHECK: ag.neg
