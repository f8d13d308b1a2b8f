// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=SCHED
// RUN: capture-interp %s --make-inputs %t/in --seed 5
// RUN: capture-run %t/m.capmod --input x=%t/in/x.npy --input y=%t/in/y.npy --input t=%t/in/t.npy --input c=%t/in/c.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s --precision f64 --input x=%t/in/x.npy --input y=%t/in/y.npy --input t=%t/in/t.npy --input c=%t/in/c.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s --check-prefix=CMP
// RUN: capture-aot %s -o %t/ssbo.capmod --target=gpu
// RUN: capture-run %t/ssbo.capmod --input x=%t/in/x.npy --input y=%t/in/y.npy --input t=%t/in/t.npy --input c=%t/in/c.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --output-dir %t/ssbo > /dev/null
// RUN: capture-interp %s --precision f64 --input x=%t/in/x.npy --input y=%t/in/y.npy --input t=%t/in/t.npy --input c=%t/in/c.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --compare %t/ssbo --tolerance 1e-5 | FileCheck %s --check-prefix=CMP

// Full reductions of more elements than one invocation may loop over on
// lavapipe (llvmpipe ends an invocation's loops after 65535 iterations in
// total, silently) run in two passes: partials, a barrier, then the final
// reduction of the partials. Sum, mean (with keepdim) and max of 100000 and
// 360000 elements match the reference interpreter in f64 (a sequential f32
// sum of 360000 terms rounds more than the two-pass one); before the split the
// device's sums stopped at element 65535.

// The first pass reads vec4s in partials of 256 elements: 391 for the
// 100000 of x, 7 workgroups of 64. The 100003 of t end in a 3-element
// tail; the region of t times a scalar reads vec4s too, the one with a
// broadcast bias row (w + r) per element. The same module for GPUs
// (storage-buffer reads) matches too.
// SCHED: dispatch sum_partial_{{[0-9]+}} groups [7, 1, 1] read {{[0-9]+}}[0, 400000) write [[S:[0-9]+]][[[P:[0-9]+]], {{[0-9]+}})
// SCHED-NEXT: barrier
// SCHED-NEXT: dispatch sum_final_{{[0-9]+}} groups [1, 1, 1] read [[S]][[[P]], {{[0-9]+}})

// CMP-DAG: compare sum_x: {{.*}}: ok
// CMP-DAG: compare mean_y_keep: {{.*}}: ok
// CMP-DAG: compare max_y: {{.*}}: ok
// CMP-DAG: compare sum_sq: {{.*}}: ok
// CMP-DAG: compare sum_t: {{.*}}: ok
// CMP-DAG: compare max_t: {{.*}}: ok
// CMP-DAG: compare sum_tc: {{.*}}: ok
// CMP-DAG: compare sum_wr: {{.*}}: ok

ag.forward @large(%x: tensor<100000xf32> {ag.name = "x"}, %y: tensor<600x600xf32> {ag.name = "y"},
                  %t: tensor<100003xf32> {ag.name = "t"}, %c: tensor<f32> {ag.name = "c"},
                  %w: tensor<300x37xf32> {ag.name = "w"}, %r: tensor<37xf32> {ag.name = "r"})
    -> (tensor<f32> {ag.name = "sum_x"}, tensor<1x1xf32> {ag.name = "mean_y_keep"},
        tensor<f32> {ag.name = "max_y"}, tensor<f32> {ag.name = "sum_sq"},
        tensor<f32> {ag.name = "sum_t"}, tensor<f32> {ag.name = "max_t"},
        tensor<f32> {ag.name = "sum_tc"}, tensor<f32> {ag.name = "sum_wr"}) {
  %s = ag.sum %x : tensor<100000xf32> -> tensor<f32>
  %m = ag.mean %y {keepdim} : tensor<600x600xf32> -> tensor<1x1xf32>
  %mx = ag.max %y : tensor<600x600xf32> -> tensor<f32>
  %sq = ag.mul %y, %y : (tensor<600x600xf32>, tensor<600x600xf32>) -> tensor<600x600xf32>
  %ss = ag.sum %sq : tensor<600x600xf32> -> tensor<f32>
  %st = ag.sum %t : tensor<100003xf32> -> tensor<f32>
  %mt = ag.max %t : tensor<100003xf32> -> tensor<f32>
  %tc = ag.mul %t, %c : (tensor<100003xf32>, tensor<f32>) -> tensor<100003xf32>
  %stc = ag.sum %tc : tensor<100003xf32> -> tensor<f32>
  %wr = ag.add %w, %r : (tensor<300x37xf32>, tensor<37xf32>) -> tensor<300x37xf32>
  %swr = ag.sum %wr : tensor<300x37xf32> -> tensor<f32>
  ag.return %s, %m, %mx, %ss, %st, %mt, %stc, %swr : tensor<f32>, tensor<1x1xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
