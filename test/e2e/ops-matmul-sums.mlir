// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=FUSED
// RUN: capture-interp %s --make-inputs %t/in --seed 11
// RUN: capture-run %t/m.capmod --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --input x4=%t/in/x4.npy --input d4=%t/in/d4.npy --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --input x4=%t/in/x4.npy --input d4=%t/in/d4.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s
// RUN: capture-aot %s -o %t/gpu.capmod --target=gpu
// RUN: capture-run %t/gpu.capmod --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --input x4=%t/in/x4.npy --input d4=%t/in/d4.npy --output-dir %t/ssbo > /dev/null
// RUN: capture-interp %s --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --input x4=%t/in/x4.npy --input d4=%t/in/d4.npy --compare %t/ssbo --tolerance 1e-5 | FileCheck %s

// Weight gradients Xᵀ·D with their bias gradients sum(X, axis 0) fused
// into the matmul (its first column of tiles sums X), against the
// interpreter on both read paths: vec4 rows (M = 12, a tail of the 8-row
// tile), scalar rows (M = 13), K = 1, K = 70000 (the sums' loop blocked
// like the products' past llvmpipe's 65535-iteration cap), a sum before
// its matmul and one after, and a matmul with an epilogue. Every X has
// more elements than a quarter of the largest matmul result (4100x3), so
// that no workgroup region takes its sum.

// FUSED-COUNT-5: dispatch matmul_{{(relu_)?}}sum_
// FUSED-NOT: dispatch sum_

// CHECK-DAG: compare w1: {{.*}}: ok
// CHECK-DAG: compare b1: {{.*}}: ok
// CHECK-DAG: compare w2: {{.*}}: ok
// CHECK-DAG: compare b2: {{.*}}: ok
// CHECK-DAG: compare w3: {{.*}}: ok
// CHECK-DAG: compare b3: {{.*}}: ok
// CHECK-DAG: compare w4: {{.*}}: ok
// CHECK-DAG: compare b4: {{.*}}: ok
// CHECK-DAG: compare r1: {{.*}}: ok
// CHECK-DAG: compare rb1: {{.*}}: ok
// CHECK-NOT: FAIL

ag.forward @f(%x1: tensor<352x12xf32> {ag.name = "x1"}, %d1: tensor<352x20xf32> {ag.name = "d1"},
              %x2: tensor<320x13xf32> {ag.name = "x2"}, %d2: tensor<320x7xf32> {ag.name = "d2"},
              %x3: tensor<1x4100xf32> {ag.name = "x3"}, %d3: tensor<1x3xf32> {ag.name = "d3"},
              %x4: tensor<70000x3xf32> {ag.name = "x4"}, %d4: tensor<70000x2xf32> {ag.name = "d4"})
    -> (tensor<12x20xf32> {ag.name = "w1"}, tensor<12xf32> {ag.name = "b1"},
        tensor<13x7xf32> {ag.name = "w2"}, tensor<13xf32> {ag.name = "b2"},
        tensor<4100x3xf32> {ag.name = "w3"}, tensor<4100xf32> {ag.name = "b3"},
        tensor<3x2xf32> {ag.name = "w4"}, tensor<3xf32> {ag.name = "b4"},
        tensor<12x20xf32> {ag.name = "r1"}, tensor<12xf32> {ag.name = "rb1"}) {
  %b1 = ag.sum %x1 axis = 0 : tensor<352x12xf32> -> tensor<12xf32>
  %w1 = ag.matmul %x1, %d1 {transpose_a} : (tensor<352x12xf32>, tensor<352x20xf32>) -> tensor<12x20xf32>
  %w2 = ag.matmul %x2, %d2 {transpose_a} : (tensor<320x13xf32>, tensor<320x7xf32>) -> tensor<13x7xf32>
  %b2 = ag.sum %x2 axis = 0 : tensor<320x13xf32> -> tensor<13xf32>
  %b3 = ag.sum %x3 axis = 0 : tensor<1x4100xf32> -> tensor<4100xf32>
  %w3 = ag.matmul %x3, %d3 {transpose_a} : (tensor<1x4100xf32>, tensor<1x3xf32>) -> tensor<4100x3xf32>
  %b4 = ag.sum %x4 axis = 0 : tensor<70000x3xf32> -> tensor<3xf32>
  %w4 = ag.matmul %x4, %d4 {transpose_a} : (tensor<70000x3xf32>, tensor<70000x2xf32>) -> tensor<3x2xf32>
  // With an epilogue (relu): a matmul region that also sums; the other
  // operand, so that CSE keeps it apart from %w1.
  %x1n = ag.neg %x1 : tensor<352x12xf32>
  %m = ag.matmul %x1n, %d1 {transpose_a} : (tensor<352x12xf32>, tensor<352x20xf32>) -> tensor<12x20xf32>
  %r1 = ag.relu %m : tensor<12x20xf32>
  %rb1 = ag.sum %x1n axis = 0 : tensor<352x12xf32> -> tensor<12xf32>
  ag.return %w1, %b1, %w2, %b2, %w3, %b3, %w4, %b4, %r1, %rb1 : tensor<12x20xf32>, tensor<12xf32>, tensor<13x7xf32>, tensor<13xf32>, tensor<4100x3xf32>, tensor<4100xf32>, tensor<3x2xf32>, tensor<3xf32>, tensor<12x20xf32>, tensor<12xf32>
}
