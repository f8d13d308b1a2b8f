// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=SCHED
// RUN: capture-interp %s --make-inputs %t/in --seed 5
// RUN: capture-run %t/m.capmod --input x=%t/in/x.npy --input y=%t/in/y.npy --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s --precision f64 --input x=%t/in/x.npy --input y=%t/in/y.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s --check-prefix=CMP

// Full reductions of more elements than one invocation may loop over on
// lavapipe (llvmpipe ends an invocation's loops after 65535 iterations in
// total, silently) run in two passes: partials, a barrier, then the final
// reduction of the partials. Sum, mean (with keepdim) and max of 100000 and
// 360000 elements match the reference interpreter in f64 (a sequential f32
// sum of 360000 terms rounds more than the two-pass one); before the split the
// device's sums stopped at element 65535.

// SCHED: dispatch sum_partial_{{[0-9]+}} groups [2, 1, 1] read {{[0-9]+}}[0, 400000) write [[S:[0-9]+]][[[P:[0-9]+]], {{[0-9]+}})
// SCHED-NEXT: barrier
// SCHED-NEXT: dispatch sum_final_{{[0-9]+}} groups [1, 1, 1] read [[S]][[[P]], {{[0-9]+}})

// CMP-DAG: compare sum_x: {{.*}}: ok
// CMP-DAG: compare mean_y_keep: {{.*}}: ok
// CMP-DAG: compare max_y: {{.*}}: ok
// CMP-DAG: compare sum_sq: {{.*}}: ok

ag.forward @large(%x: tensor<100000xf32> {ag.name = "x"}, %y: tensor<600x600xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "sum_x"}, tensor<1x1xf32> {ag.name = "mean_y_keep"},
        tensor<f32> {ag.name = "max_y"}, tensor<f32> {ag.name = "sum_sq"}) {
  %s = ag.sum %x : tensor<100000xf32> -> tensor<f32>
  %m = ag.mean %y {keepdim} : tensor<600x600xf32> -> tensor<1x1xf32>
  %mx = ag.max %y : tensor<600x600xf32> -> tensor<f32>
  %sq = ag.mul %y, %y : (tensor<600x600xf32>, tensor<600x600xf32>) -> tensor<600x600xf32>
  %ss = ag.sum %sq : tensor<600x600xf32> -> tensor<f32>
  ag.return %s, %m, %mx, %ss : tensor<f32>, tensor<1x1xf32>, tensor<f32>, tensor<f32>
}
