// RUN: capture-aot %s -o %t.capmod
// RUN: capture-run %t.capmod --graph | FileCheck %s
// RUN: capture-aot %s -o %t.unfused.capmod --fuse=false --target=gpu
// RUN: capture-run %t.unfused.capmod --graph | FileCheck %s --check-prefix=UNFUSED

// The graph of a compiled entry: each dispatch's op (kernel name), the
// shape of every tensor it binds (the writer records each kernel's binding
// shapes), the names of inputs/outputs/weights where they live, and each
// read's producer. By default (lavapipe target, fusion on) the matmul, the
// bias add and tanh are one kernel named after all three, and reads are
// texel views covering whole 16-byte texels; with storage buffers and no
// fusion, one kernel per op reading exact ranges.

// CHECK-LABEL: entry 'predict' (Forward): 1 dispatch, 0 barriers
// CHECK-NEXT: d0 matmul_add_tanh_{{[0-9]+}} groups 1x1x1: read texel b{{[0-9]+}}:Input[0,32) [2, 4] (x), read texel b{{[0-9]+}}:Weights[0,48) [4, 3] (w), read texel b{{[0-9]+}}:Weights[256,272) [3] (b), write b{{[0-9]+}}:Output[0,24) [2, 3] (y)

// UNFUSED-LABEL: entry 'predict' (Forward): 3 dispatches, 2 barriers
// UNFUSED-NEXT: d0 matmul_{{[0-9]+}} groups 1x1x1: read b{{[0-9]+}}:Input[0,32) [2, 4] (x), read b{{[0-9]+}}:Weights[0,48) [4, 3] (w), write b{{[0-9]+}}:Scratch[0,24) [2, 3]
// UNFUSED-NEXT: barrier
// UNFUSED-NEXT: d1 add_{{[0-9]+}} groups 1x1x1: read b{{[0-9]+}}:Scratch[0,24) [2, 3] <- d0, read b{{[0-9]+}}:Weights[256,268) [3] (b), write b{{[0-9]+}}:Scratch[256,280) [2, 3]
// UNFUSED-NEXT: barrier
// UNFUSED-NEXT: d2 tanh_{{[0-9]+}} groups 1x1x1: read b{{[0-9]+}}:Scratch[256,280) [2, 3] <- d1, write b{{[0-9]+}}:Output[0,24) [2, 3] (y)

ag.weight @w : tensor<4x3xf32> = dense<0.5>
ag.weight @b : tensor<3xf32> = dense<0.1>
ag.forward @predict(%x: tensor<2x4xf32> {ag.name = "x"}) -> (tensor<2x3xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<4x3xf32>
  %b = ag.read_weight @b : tensor<3xf32>
  %xw = ag.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %h = ag.add %xw, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y = ag.tanh %h : tensor<2x3xf32>
  ag.return %y : tensor<2x3xf32>
}
