// RUN: capture-aot %s -o %t.capmod --fuse=false --print-module | FileCheck %s

// The module writer puts a barrier exactly where a dispatch depends on an
// earlier one since the last barrier: read after write, write after read (a
// reused scratch range) or write after write; independent dispatches share
// a barrier-free stretch.

// CHECK-LABEL: entry diamond:
// Two independent reads of the input: no barrier between them.
// CHECK-NEXT: input x [4] (f32) @ buffer [[IN:[0-9]+]] [0, 16)
// CHECK-NEXT: output y [4] (f32) @ buffer [[OUT:[0-9]+]] [0, 16)
// CHECK-NEXT: dispatch exp_{{[0-9]+}} groups [1, 1, 1] read [[IN]][0, 16) write [[S:[0-9]+]][0, 16)
// CHECK-NEXT: dispatch neg_{{[0-9]+}} groups [1, 1, 1] read [[IN]][0, 16) write [[S]][256, 272)
// Read after write.
// CHECK-NEXT: barrier
// CHECK-NEXT: dispatch add_{{[0-9]+}} groups [1, 1, 1] read [[S]][0, 16) read [[S]][256, 272) write [[OUT]][0, 16)
// CHECK-NOT: barrier
ag.forward @diamond(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %a = ag.exp %x : tensor<4xf32>
  %b = ag.neg %x : tensor<4xf32>
  %c = ag.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ag.return %c : tensor<4xf32>
}

// CHECK-LABEL: entry war:
// CHECK: dispatch exp_{{[0-9]+}} groups [1, 1, 1] read [[IN2:[0-9]+]][0, 16) write [[S2:[0-9]+]][0, 16)
// CHECK-NEXT: barrier
// CHECK-NEXT: dispatch exp_{{[0-9]+}} groups [1, 1, 1] read [[S2]][0, 16) write [[S2]][256, 272)
// %c does not depend on %b, but it reuses %a's range, which %b reads:
// write after read.
// CHECK-NEXT: barrier
// CHECK-NEXT: dispatch neg_{{[0-9]+}} groups [1, 1, 1] read [[IN2]][0, 16) write [[S2]][0, 16)
ag.forward @war(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %a = ag.exp %x : tensor<4xf32>
  %b = ag.exp %a : tensor<4xf32>
  %c = ag.neg %x : tensor<4xf32>
  %d = ag.add %b, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ag.return %d : tensor<4xf32>
}
