// RUN: capture-opt %s -split-input-file -ag-form-dispatch-regions | FileCheck %s
// RUN: capture-opt %s -split-input-file -ag-form-dispatch-regions=explain -verify-diagnostics -o /dev/null

// A loss head (an mse and a mean over small tensors, and the gradient
// after them) becomes one workgroup region with a result per value used
// outside; the 64x64 matmul stays out, with the large tanh as its
// epilogue.

// CHECK-LABEL: ag.forward @head
// CHECK: %[[T:.*]] = ag.dispatch_region matmul ins(%{{.*}} : tensor<64x64xf32>)
// CHECK: ag.tanh
// CHECK: %[[R:.*]]:3 = ag.workgroup_region ins(%{{.*}}, %{{.*}} : tensor<64xf32>, tensor<64xf32>) -> (tensor<f32>, tensor<f32>, tensor<64xf32>) {
// CHECK: ag.mse
// CHECK: ag.mean
// CHECK: ag.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>, tensor<64xf32>
// CHECK: ag.return %[[R]]#0, %[[R]]#1, %[[R]]#2, %[[T]]
ag.forward @head(%v: tensor<64xf32> {ag.name = "v"}, %ret: tensor<64xf32> {ag.name = "ret"},
                 %x: tensor<64x64xf32> {ag.name = "x"})
    -> (tensor<f32> {ag.name = "l"}, tensor<f32> {ag.name = "m"}, tensor<64xf32> {ag.name = "g"},
        tensor<64x64xf32> {ag.name = "t"}) {
  %mm = ag.matmul %x, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = ag.tanh %mm : tensor<64x64xf32>
  %se = ag.mse %v, %ret : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
  %e = ag.exp %v : tensor<64xf32>
  %m = ag.mean %e : tensor<64xf32> -> tensor<f32>
  %d = ag.sub %v, %ret : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %g = ag.mul %d, %m : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  ag.return %se, %m, %g, %t : tensor<f32>, tensor<f32>, tensor<64xf32>, tensor<64x64xf32>
}

// -----

// Convexity: %y depends on the region through the matmul outside it, so
// it stays out; the matmul, between the region's ops, moves after it.

// CHECK-LABEL: ag.forward @convex
// CHECK: %[[R:.*]]:2 = ag.workgroup_region
// CHECK: ag.sum
// CHECK: ag.sum
// CHECK: ag.yield
// CHECK: %[[MM:.*]] = ag.dispatch_region matmul ins(%[[R]]#0, %{{.*}}
// CHECK: ag.neg
// CHECK: ag.return %[[R]]#1, %[[MM]]
ag.forward @convex(%a: tensor<8x8xf32> {ag.name = "a"}, %w: tensor<8x8xf32> {ag.name = "w"})
    -> (tensor<f32> {ag.name = "s"}, tensor<8x8xf32> {ag.name = "y"}) {
  %e = ag.exp %a : tensor<8x8xf32>
  %mm = ag.matmul %e, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = ag.sum %e axis = 1 : tensor<8x8xf32> -> tensor<8xf32>
  %s = ag.sum %r : tensor<8xf32> -> tensor<f32>
  // expected-remark @+1 {{not in the workgroup region: it depends on the region's results through an op outside it}}
  %y = ag.neg %mm : tensor<8x8xf32>
  ag.return %s, %y : tensor<f32>, tensor<8x8xf32>
}

// -----

// One reduction is not worth a workgroup region: the reduction region
// already makes it one kernel.

// CHECK-LABEL: ag.forward @single
// CHECK-NOT: ag.workgroup_region
// CHECK: ag.dispatch_region reduction
ag.forward @single(%a: tensor<16xf32> {ag.name = "a"}) -> (tensor<f32> {ag.name = "s"}) {
  %e = ag.exp %a : tensor<16xf32>
  %s = ag.sum %e : tensor<16xf32> -> tensor<f32>
  ag.return %s : tensor<f32>
}

// -----

// Tensors over 1024 elements stay out: a reduction over 5000 elements
// and its producer keep their reduction region.

// CHECK-LABEL: ag.forward @large
// CHECK: ag.dispatch_region reduction ins(%{{.*}} : tensor<5000xf32>)
// CHECK: ag.workgroup_region ins(%{{.*}} : tensor<8xf32>)
ag.forward @large(%a: tensor<5000xf32> {ag.name = "a"}, %b: tensor<8xf32> {ag.name = "b"})
    -> (tensor<f32> {ag.name = "s"}, tensor<f32> {ag.name = "t"}) {
  %e = ag.exp %a : tensor<5000xf32>
  %s = ag.sum %e : tensor<5000xf32> -> tensor<f32>
  %m = ag.max %b : tensor<8xf32> -> tensor<f32>
  %d = ag.sub %b, %m : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %t = ag.sum %d : tensor<8xf32> -> tensor<f32>
  ag.return %s, %t : tensor<f32>, tensor<f32>
}

// -----

// The limit follows the step's size: a quarter of its largest matmul
// result, within [1024, 8192] elements. Next to a 256x64 matmul (limit
// 4096) a 256x8 head of 2048 elements joins one workgroup region...

// CHECK-LABEL: ag.forward @scaled
// CHECK: ag.workgroup_region ins(%{{.*}} : tensor<256x8xf32>)
ag.forward @scaled(%x: tensor<256x64xf32> {ag.name = "x"}, %w: tensor<64x64xf32> {ag.name = "w"},
                   %h: tensor<256x8xf32> {ag.name = "h"})
    -> (tensor<256x64xf32> {ag.name = "y"}, tensor<f32> {ag.name = "m"}) {
  %y = ag.matmul %x, %w {transpose_b} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %e = ag.exp %h : tensor<256x8xf32>
  %r = ag.sum %e axis = 1 : tensor<256x8xf32> -> tensor<256xf32>
  %m = ag.mean %r : tensor<256xf32> -> tensor<f32>
  ag.return %y, %m : tensor<256x64xf32>, tensor<f32>
}

// -----

// ... but next to a 64x64 one (limit 1024) it does not: a reduction region
// and a reduction instead.

// CHECK-LABEL: ag.forward @unscaled
// CHECK-NOT: ag.workgroup_region
// CHECK: ag.dispatch_region reduction ins(%{{.*}} : tensor<256x8xf32>)
ag.forward @unscaled(%x: tensor<64x64xf32> {ag.name = "x"}, %w: tensor<64x64xf32> {ag.name = "w"},
                     %h: tensor<256x8xf32> {ag.name = "h"})
    -> (tensor<64x64xf32> {ag.name = "y"}, tensor<f32> {ag.name = "m"}) {
  %y = ag.matmul %x, %w {transpose_b} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %e = ag.exp %h : tensor<256x8xf32>
  // expected-remark @+1 {{'ag.sum' is a reduction: it ends a region of its own}}
  %r = ag.sum %e axis = 1 : tensor<256x8xf32> -> tensor<256xf32>
  %m = ag.mean %r : tensor<256xf32> -> tensor<f32>
  ag.return %y, %m : tensor<64x64xf32>, tensor<f32>
}

// -----

// At the top of the range: next to a 1024x64 matmul (a quarter is 16384,
// the limit 8192) a 1024x8 head of 8192 elements joins...

// CHECK-LABEL: ag.forward @largest
// CHECK: ag.workgroup_region ins(%{{.*}} : tensor<1024x8xf32>)
ag.forward @largest(%x: tensor<1024x64xf32> {ag.name = "x"}, %w: tensor<64x64xf32> {ag.name = "w"},
                    %h: tensor<1024x8xf32> {ag.name = "h"})
    -> (tensor<1024x64xf32> {ag.name = "y"}, tensor<f32> {ag.name = "m"}) {
  %y = ag.matmul %x, %w {transpose_b} : (tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<1024x64xf32>
  %e = ag.exp %h : tensor<1024x8xf32>
  %r = ag.sum %e axis = 1 : tensor<1024x8xf32> -> tensor<1024xf32>
  %m = ag.mean %r : tensor<1024xf32> -> tensor<f32>
  ag.return %y, %m : tensor<1024x64xf32>, tensor<f32>
}

// -----

// ... and next to a 2048x64 one (a quarter is 32768) a 2048x8 head of
// 16384 elements stays out: one workgroup would compute it all.

// CHECK-LABEL: ag.forward @capped
// CHECK-NOT: ag.workgroup_region
// CHECK: ag.dispatch_region reduction ins(%{{.*}} : tensor<2048x8xf32>)
ag.forward @capped(%x: tensor<2048x64xf32> {ag.name = "x"}, %w: tensor<64x64xf32> {ag.name = "w"},
                   %h: tensor<2048x8xf32> {ag.name = "h"})
    -> (tensor<2048x64xf32> {ag.name = "y"}, tensor<f32> {ag.name = "m"}) {
  %y = ag.matmul %x, %w {transpose_b} : (tensor<2048x64xf32>, tensor<64x64xf32>) -> tensor<2048x64xf32>
  %e = ag.exp %h : tensor<2048x8xf32>
  // expected-remark @+1 {{'ag.sum' is a reduction: it ends a region of its own}}
  %r = ag.sum %e axis = 1 : tensor<2048x8xf32> -> tensor<2048xf32>
  %m = ag.mean %r : tensor<2048xf32> -> tensor<f32>
  ag.return %y, %m : tensor<2048x64xf32>, tensor<f32>
}

// -----

// A classifier's head as autodiff writes it: cross-entropy, softmax and
// one_hot are members, the i32 labels an input (read from memory, never
// made in the region). The label check reads the labels too but stays
// out: it is no member.

// CHECK-LABEL: ag.forward @classifier
// CHECK-SAME: (%[[Z:.*]]: tensor<16x5xf32> {{.*}}, %[[L:.*]]: tensor<16xi32>
// CHECK: ag.check_indices %[[L]]
// CHECK: %[[R:.*]]:2 = ag.workgroup_region ins(%[[Z]], %[[L]] : tensor<16x5xf32>, tensor<16xi32>) -> (tensor<f32>, tensor<16x5xf32>) {
// CHECK: ag.cross_entropy
// CHECK: ag.softmax
// CHECK: ag.one_hot
// CHECK: ag.sub
// CHECK: ag.yield
// CHECK: ag.return %[[R]]#0, %[[R]]#1
ag.forward @classifier(%z: tensor<16x5xf32> {ag.name = "z"}, %l: tensor<16xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<16x5xf32> {ag.name = "g"}, tensor<2xi32> {ag.name = "status"}) {
  %s:2 = ag.check_indices %l {bound = 5 : i64, op = "ag.cross_entropy"} : tensor<16xi32> -> (tensor<2xi32>, tensor<f32>)
  %loss = ag.cross_entropy %z, %l : (tensor<16x5xf32>, tensor<16xi32>) -> tensor<f32>
  %p = ag.softmax %z axis = 1 : tensor<16x5xf32>
  %oh = ag.one_hot %l : tensor<16xi32> -> tensor<16x5xf32>
  %g = ag.sub %p, %oh : (tensor<16x5xf32>, tensor<16x5xf32>) -> tensor<16x5xf32>
  ag.return %loss, %g, %s#0 : tensor<f32>, tensor<16x5xf32>, tensor<2xi32>
}
