// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=FUSED
// RUN: capture-interp %s --make-inputs %t/in --seed 8
// RUN: capture-run %t/m.capmod --input a=%t/in/a.npy --input w=%t/in/w.npy --input b=%t/in/b.npy --input c=%t/in/c.npy --input s=%t/in/s.npy --input at=%t/in/at.npy --input v=%t/in/v.npy --input u=%t/in/u.npy --input bias=%t/in/bias.npy --input y=%t/in/y.npy --input r1=%t/in/r1.npy --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s --input a=%t/in/a.npy --input w=%t/in/w.npy --input b=%t/in/b.npy --input c=%t/in/c.npy --input s=%t/in/s.npy --input at=%t/in/at.npy --input v=%t/in/v.npy --input u=%t/in/u.npy --input bias=%t/in/bias.npy --input y=%t/in/y.npy --input r1=%t/in/r1.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s
// RUN: capture-aot %s -o %t/ssbo.capmod --target=gpu
// RUN: capture-run %t/ssbo.capmod --input a=%t/in/a.npy --input w=%t/in/w.npy --input b=%t/in/b.npy --input c=%t/in/c.npy --input s=%t/in/s.npy --input at=%t/in/at.npy --input v=%t/in/v.npy --input u=%t/in/u.npy --input bias=%t/in/bias.npy --input y=%t/in/y.npy --input r1=%t/in/r1.npy --output-dir %t/ssbo > /dev/null
// RUN: capture-interp %s --input a=%t/in/a.npy --input w=%t/in/w.npy --input b=%t/in/b.npy --input c=%t/in/c.npy --input s=%t/in/s.npy --input at=%t/in/at.npy --input v=%t/in/v.npy --input u=%t/in/u.npy --input bias=%t/in/bias.npy --input y=%t/in/y.npy --input r1=%t/in/r1.npy --compare %t/ssbo --tolerance 1e-5 | FileCheck %s

// Matmuls with their epilogues fused (one kernel each), against the
// interpreter: a bias row and tanh (the forward Linear), a column and a
// scalar broadcast, the transposed form, and shapes that leave partial 8x8
// tiles (13 rows, 10 columns). The matmul's own operand read again by the
// epilogue is bound twice (vec4 for the matmul, f32 for the epilogue).
// A vec4 result (N = 20, stored 4 columns at a time) with a bias row, an
// input of its shape and a [1, N] row in its epilogue, its last column
// tile and last row tile partial.

// FUSED-COUNT-4: dispatch matmul_{{add|mul}}
// FUSED-NOT: dispatch

// CHECK-DAG: compare linear: {{.*}}: ok
// CHECK-DAG: compare scaled: {{.*}}: ok
// CHECK-DAG: compare self: {{.*}}: ok
// CHECK-DAG: compare vec4: {{.*}}: ok
// CHECK-NOT: FAIL

ag.forward @f(%a: tensor<13x12xf32> {ag.name = "a"}, %w: tensor<10x12xf32> {ag.name = "w"},
              %b: tensor<10xf32> {ag.name = "b"}, %c: tensor<13x1xf32> {ag.name = "c"},
              %s: tensor<f32> {ag.name = "s"}, %at: tensor<12x12xf32> {ag.name = "at"},
              %v: tensor<10x12xf32> {ag.name = "v"}, %u: tensor<20x12xf32> {ag.name = "u"},
              %bias: tensor<20xf32> {ag.name = "bias"}, %y: tensor<13x20xf32> {ag.name = "y"},
              %r1: tensor<1x20xf32> {ag.name = "r1"})
    -> (tensor<13x10xf32> {ag.name = "linear"}, tensor<13x10xf32> {ag.name = "scaled"},
        tensor<12x12xf32> {ag.name = "self"}, tensor<13x20xf32> {ag.name = "vec4"}) {
  %0 = ag.matmul %a, %w {transpose_b} : (tensor<13x12xf32>, tensor<10x12xf32>) -> tensor<13x10xf32>
  %1 = ag.add %0, %b : (tensor<13x10xf32>, tensor<10xf32>) -> tensor<13x10xf32>
  %2 = ag.tanh %1 : tensor<13x10xf32>
  %3 = ag.matmul %a, %v {transpose_b} : (tensor<13x12xf32>, tensor<10x12xf32>) -> tensor<13x10xf32>
  %4 = ag.mul %3, %c : (tensor<13x10xf32>, tensor<13x1xf32>) -> tensor<13x10xf32>
  %5 = ag.sub %4, %s : (tensor<13x10xf32>, tensor<f32>) -> tensor<13x10xf32>
  %6 = ag.matmul %at, %at {transpose_a} : (tensor<12x12xf32>, tensor<12x12xf32>) -> tensor<12x12xf32>
  %7 = ag.add %6, %at : (tensor<12x12xf32>, tensor<12x12xf32>) -> tensor<12x12xf32>
  %8 = ag.matmul %a, %u {transpose_b} : (tensor<13x12xf32>, tensor<20x12xf32>) -> tensor<13x20xf32>
  %9 = ag.add %8, %bias : (tensor<13x20xf32>, tensor<20xf32>) -> tensor<13x20xf32>
  %10 = ag.mul %9, %y : (tensor<13x20xf32>, tensor<13x20xf32>) -> tensor<13x20xf32>
  %11 = ag.sub %10, %r1 : (tensor<13x20xf32>, tensor<1x20xf32>) -> tensor<13x20xf32>
  ag.return %2, %5, %7, %11 : tensor<13x10xf32>, tensor<13x10xf32>, tensor<12x12xf32>, tensor<13x20xf32>
}
