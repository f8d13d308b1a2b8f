// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod
// RUN: capture-interp %s --make-inputs %t/in --seed 11
// RUN: capture-run %t/m.capmod --input a=%t/in/a.npy --input b=%t/in/b.npy --input c=%t/in/c.npy --output-dir %t/gpu | FileCheck %s --check-prefix=REPLAY
// RUN: capture-interp %s --input a=%t/in/a.npy --input b=%t/in/b.npy --input c=%t/in/c.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s --check-prefix=CMP

// End to end: ag.minimum / ag.maximum with broadcasting both ways (the
// smaller operand first or second, and [3, 1] against [5] where both
// operands broadcast), NaN propagation through them and through ag.clamp
// (NaN stays NaN; compare counts NaN at the same place as agreement and NaN
// on one side only as a mismatch), and ag.broadcast_to.

// The device's NaNs: columns 0 and 2 of the NaN constant (the other
// columns are outside the inputs' [-1, 1)).
// REPLAY: output mn_nan [3, 5]: {{-?nan}} {{[-0-9.e]+}} {{-?nan}} -2 {{[-0-9.e]+}}
// REPLAY: output mx_nan [3, 5]: {{-?nan}} 2 {{-?nan}} {{[-0-9.e]+}} {{[-0-9.e]+}}
// REPLAY: output clamp_nan [5]: {{-?nan}} 0.5 {{-?nan}} -0.25 0.5{{$}}

// CMP-DAG: compare mn_ab: {{.*}}: ok
// CMP-DAG: compare mn_ba: {{.*}}: ok
// CMP-DAG: compare mx_ab: {{.*}}: ok
// CMP-DAG: compare mx_ba: {{.*}}: ok
// CMP-DAG: compare mn_cb: {{.*}}: ok
// CMP-DAG: compare mx_cb: {{.*}}: ok
// CMP-DAG: compare mn_nan: {{.*}}: ok
// CMP-DAG: compare mx_nan: {{.*}}: ok
// CMP-DAG: compare clamp: {{.*}}: ok
// CMP-DAG: compare clamp_nan: {{.*}}: ok
// CMP-DAG: compare bc_b: {{.*}}: ok
// CMP-DAG: compare bc_c: {{.*}}: ok
// CMP-NOT: FAIL

ag.forward @f(%a: tensor<3x5xf32> {ag.name = "a"}, %b: tensor<5xf32> {ag.name = "b"},
              %c: tensor<3x1xf32> {ag.name = "c"})
    -> (tensor<3x5xf32> {ag.name = "mn_ab"}, tensor<3x5xf32> {ag.name = "mn_ba"},
        tensor<3x5xf32> {ag.name = "mx_ab"}, tensor<3x5xf32> {ag.name = "mx_ba"},
        tensor<3x5xf32> {ag.name = "mn_cb"}, tensor<3x5xf32> {ag.name = "mx_cb"},
        tensor<3x5xf32> {ag.name = "mn_nan"}, tensor<3x5xf32> {ag.name = "mx_nan"},
        tensor<3x5xf32> {ag.name = "clamp"}, tensor<5xf32> {ag.name = "clamp_nan"},
        tensor<2x3x5xf32> {ag.name = "bc_b"}, tensor<2x3x5xf32> {ag.name = "bc_c"}) {
  %nan = ag.constant dense<[0x7FC00000, 2.0, 0x7FC00000, -2.0, 0.5]> : tensor<5xf32>
  %three = ag.constant dense<3.0> : tensor<1xf32>
  %0 = ag.minimum %a, %b : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %1 = ag.minimum %b, %a : (tensor<5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %2 = ag.maximum %a, %b : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %3 = ag.maximum %b, %a : (tensor<5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %4 = ag.minimum %c, %b : (tensor<3x1xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %5 = ag.maximum %b, %c : (tensor<5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
  %6 = ag.minimum %nan, %a : (tensor<5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %7 = ag.maximum %nan, %a : (tensor<5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  // Inputs are in [-1, 1): scale them so that both bounds clip.
  %s = ag.mul %a, %three : (tensor<3x5xf32>, tensor<1xf32>) -> tensor<3x5xf32>
  %8 = ag.clamp %s min = -0.25 max = 0.5 : tensor<3x5xf32>
  %9 = ag.clamp %nan min = -0.25 max = 0.5 : tensor<5xf32>
  %10 = ag.broadcast_to %b : tensor<5xf32> -> tensor<2x3x5xf32>
  %11 = ag.broadcast_to %c : tensor<3x1xf32> -> tensor<2x3x5xf32>
  ag.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>,
        tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>,
        tensor<3x5xf32>, tensor<5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>
}
