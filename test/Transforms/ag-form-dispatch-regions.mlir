// RUN: capture-opt %s -split-input-file -ag-form-dispatch-regions=workgroup=false | FileCheck %s
// RUN: capture-opt %s -split-input-file '-ag-form-dispatch-regions=explain workgroup=false' -verify-diagnostics -o /dev/null

// The elementwise, matmul and reduction kinds on small tensors (workgroup
// regions off: ag-form-dispatch-regions-workgroup.mlir tests those).

// A Linear layer and tanh' chain: the matmul, its bias add and tanh form
// one matmul region (the matmul's epilogue); square, 1 - x and the product
// form another. What did not join, and why, is what `explain` reports.

ag.weight @b : tensor<8xf32> = dense<0.5>
ag.forward @layer(%x: tensor<4x8xf32> {ag.name = "x"}, %w: tensor<8x8xf32> {ag.name = "w"})
    -> (tensor<4x8xf32> {ag.name = "y"}, tensor<4x8xf32> {ag.name = "h"}) {
  %b = ag.read_weight @b : tensor<8xf32>
  %one = ag.constant dense<1.0> : tensor<4x8xf32>
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
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32> {{.*}}, %[[W:.*]]: tensor<8x8xf32>
// CHECK: %[[B:.*]] = ag.read_weight @b
// An op with nothing to fuse still gets a region of its own.
// CHECK: %[[BB:.*]] = ag.dispatch_region elementwise ins(%[[B]] : tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[BARG:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[SQ:.*]] = ag.mul %[[BARG]], %[[BARG]]
// CHECK-NEXT: ag.yield %[[SQ]] : tensor<8xf32>
// CHECK: %[[T:.*]] = ag.dispatch_region matmul ins(%[[X]], %[[W]], %[[BB]] : tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[XA:.*]]: tensor<4x8xf32>, %[[WA:.*]]: tensor<8x8xf32>, %[[BA:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[MM:.*]] = ag.matmul %[[XA]], %[[WA]] {transpose_b}
// CHECK-NEXT: %[[ADD:.*]] = ag.add %[[MM]], %[[BA]]
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

// -----

// A matmul heads at most one epilogue of its own shape; its operands'
// producers stay outside (the template reads the operands from memory); a
// second matmul stays a kernel of its own.

ag.forward @two(%x: tensor<4x8xf32> {ag.name = "x"}, %w: tensor<8x8xf32> {ag.name = "w"},
                %v: tensor<4x8xf32> {ag.name = "v"})
    -> (tensor<4x8xf32> {ag.name = "y"}) {
  // expected-remark @+1 {{it feeds the region's matmul, which reads only region inputs}}
  %r = ag.relu %x : tensor<4x8xf32>
  %m = ag.matmul %r, %w {transpose_b} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{the region already has a matmul}}
  %n = ag.matmul %v, %w {transpose_b} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = ag.add %m, %n : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  ag.return %s : tensor<4x8xf32>
}

// CHECK-LABEL: ag.forward @two
// CHECK: %[[R:.*]] = ag.dispatch_region elementwise
// CHECK: ag.relu
// CHECK: %[[N:.*]] = ag.matmul
// CHECK: ag.dispatch_region matmul ins(%[[R]], %{{.*}}, %[[N]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: ag.matmul
// CHECK-NEXT: ag.add
// CHECK-NEXT: ag.yield

// -----

// A matmul whose result broadcasts into a larger epilogue stays outside.

ag.forward @wide(%x: tensor<1x8xf32> {ag.name = "x"}, %w: tensor<8x8xf32> {ag.name = "w"},
                 %v: tensor<4x8xf32> {ag.name = "v"})
    -> (tensor<4x8xf32> {ag.name = "y"}) {
  // expected-remark @+1 {{a matmul heads only an epilogue of its own shape [1, 8], not [4, 8]}}
  %m = ag.matmul %x, %w : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  %s = ag.add %v, %m : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  ag.return %s : tensor<4x8xf32>
}

// CHECK-LABEL: ag.forward @wide
// CHECK: ag.matmul
// CHECK: ag.dispatch_region elementwise

// -----

// A reduction roots a region of its elementwise producers (of the reduced
// tensor's shape): the squares of a gradient norm are never stored, and
// the sqrt, which only maps the reduced value, joins as its epilogue. A
// reduction with nothing to fuse stays the op it is.

ag.forward @norm(%g: tensor<100xf32> {ag.name = "g"}, %h: tensor<4x8xf32> {ag.name = "h"})
    -> (tensor<f32> {ag.name = "n"}, tensor<4xf32> {ag.name = "r"}) {
  %sq = ag.mul %g, %g : (tensor<100xf32>, tensor<100xf32>) -> tensor<100xf32>
  // expected-remark @+1 {{'ag.sum' is a reduction: it ends a region of its own}}
  %s = ag.sum %sq : tensor<100xf32> -> tensor<f32>
  %n = ag.sqrt %s : tensor<f32>
  %r = ag.max %h axis = 1 : tensor<4x8xf32> -> tensor<4xf32>
  ag.return %n, %r : tensor<f32>, tensor<4xf32>
}

// CHECK-LABEL: ag.forward @norm
// CHECK: %[[S:.*]] = ag.dispatch_region reduction ins(%{{.*}} : tensor<100xf32>) -> tensor<f32> {
// CHECK-NEXT: ^bb0(%[[G:.*]]: tensor<100xf32>):
// CHECK-NEXT: %[[SQ:.*]] = ag.mul %[[G]], %[[G]]
// CHECK-NEXT: %[[SUM:.*]] = ag.sum %[[SQ]]
// CHECK-NEXT: %[[N:.*]] = ag.sqrt %[[SUM]]
// CHECK-NEXT: ag.yield %[[N]] : tensor<f32>
// CHECK-NOT: ag.dispatch_region elementwise
// CHECK: ag.max %{{.*}} axis = 1

// -----

// The epilogue may also read single-element inputs: the poison of the index
// checks added to a gradient norm joins the norm's final pass. A mapping
// that reads a whole tensor besides the reduced value stays a region of
// its own.

ag.forward @poisoned_norm(%g: tensor<100xf32> {ag.name = "g"}, %p: tensor<f32> {ag.name = "p"}, %v: tensor<4xf32> {ag.name = "v"})
    -> (tensor<f32> {ag.name = "n"}, tensor<4xf32> {ag.name = "w"}) {
  %sq = ag.mul %g, %g : (tensor<100xf32>, tensor<100xf32>) -> tensor<100xf32>
  // expected-remark @+1 {{'ag.sum' is a reduction: it ends a region of its own}}
  %s = ag.sum %sq : tensor<100xf32> -> tensor<f32>
  %n = ag.sqrt %s : tensor<f32>
  %t = ag.add %n, %p : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %gv = ag.mul %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @+1 {{'ag.sum' is a reduction: it ends a region of its own}}
  %sv = ag.sum %gv : tensor<4xf32> -> tensor<f32>
  %w = ag.add %sv, %v : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  ag.return %t, %w : tensor<f32>, tensor<4xf32>
}

// CHECK-LABEL: ag.forward @poisoned_norm
// CHECK-SAME: (%[[G0:.*]]: tensor<100xf32> {{.*}}, %[[P0:.*]]: tensor<f32> {{.*}}, %[[V0:.*]]: tensor<4xf32>
// CHECK: %[[T:.*]] = ag.dispatch_region reduction ins(%[[G0]], %[[P0]] : tensor<100xf32>, tensor<f32>) -> tensor<f32> {
// CHECK-NEXT: ^bb0(%[[G:.*]]: tensor<100xf32>, %[[P:.*]]: tensor<f32>):
// CHECK-NEXT: %[[SQ:.*]] = ag.mul %[[G]], %[[G]]
// CHECK-NEXT: %[[SUM:.*]] = ag.sum %[[SQ]]
// CHECK-NEXT: %[[N:.*]] = ag.sqrt %[[SUM]]
// CHECK-NEXT: %[[A:.*]] = ag.add %[[N]], %[[P]]
// CHECK-NEXT: ag.yield %[[A]] : tensor<f32>
// CHECK: %[[SV:.*]] = ag.dispatch_region reduction ins(%[[V0]] : tensor<4xf32>) -> tensor<f32> {
// CHECK: %[[W:.*]] = ag.dispatch_region elementwise ins(%[[SV]], %[[V0]] : tensor<f32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK: ag.return %[[T]], %[[W]]

// -----

// A bias gradient (the sum along axis 0 of the transposed left operand)
// joins its weight gradient's matmul as a second result, whether the sum
// comes before the matmul or after it, and with the matmul's epilogue; a
// sum of the right operand does not.

// CHECK-LABEL: ag.forward @bias_grads
// CHECK: %[[A:.*]]:2 = ag.dispatch_region matmul ins(%[[X:.*]], %[[D:.*]] : tensor<6x4xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>, tensor<4xf32> {
// CHECK: ^bb0(%[[XA:.*]]: tensor<6x4xf32>, %[[DA:.*]]: tensor<6x5xf32>):
// CHECK: %[[M:.*]] = ag.matmul %[[XA]], %[[DA]] {transpose_a}
// CHECK: %[[S:.*]] = ag.sum %[[XA]] axis = 0
// CHECK: ag.yield %[[M]], %[[S]] : tensor<4x5xf32>, tensor<4xf32>
// CHECK: %[[B:.*]]:2 = ag.dispatch_region matmul ins(%{{.*}}, %{{.*}} : tensor<6x4xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>, tensor<4xf32> {
// CHECK: ag.tanh
// CHECK: ag.sum
// CHECK: %[[R:.*]] = ag.sum %[[D]] axis = 0
// CHECK: ag.return %[[A]]#0, %[[A]]#1, %[[B]]#0, %[[B]]#1, %[[R]]
ag.forward @bias_grads(%x: tensor<6x4xf32> {ag.name = "x"}, %d: tensor<6x5xf32> {ag.name = "d"})
    -> (tensor<4x5xf32> {ag.name = "w"}, tensor<4xf32> {ag.name = "b"}, tensor<4x5xf32> {ag.name = "t"},
        tensor<4xf32> {ag.name = "tb"}, tensor<5xf32> {ag.name = "r"}) {
  %b = ag.sum %x axis = 0 : tensor<6x4xf32> -> tensor<4xf32>
  %w = ag.matmul %x, %d {transpose_a} : (tensor<6x4xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  // expected-remark @+2 {{its result is also used by 'ag.matmul' outside the region}}
  // expected-remark @+1 {{it feeds the region's matmul, which reads only region inputs}}
  %xn = ag.neg %x : tensor<6x4xf32>
  %m = ag.matmul %xn, %d {transpose_a} : (tensor<6x4xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  %t = ag.tanh %m : tensor<4x5xf32>
  %tb = ag.sum %xn axis = 0 : tensor<6x4xf32> -> tensor<4xf32>
  %r = ag.sum %d axis = 0 : tensor<6x5xf32> -> tensor<5xf32>
  ag.return %w, %b, %t, %tb, %r : tensor<4x5xf32>, tensor<4xf32>, tensor<4x5xf32>, tensor<4xf32>, tensor<5xf32>
}
