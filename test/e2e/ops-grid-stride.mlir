// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=SCHED
// RUN: capture-interp %s --make-inputs %t/in --seed 3
// RUN: capture-run %t/m.capmod --input x=%t/in/x.npy --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s --input x=%t/in/x.npy --compare %t/gpu --tolerance 0 | FileCheck %s --check-prefix=CMP

// End to end: kernels with more work items than one launch has
// invocations (65535 workgroups of 64: 4194240). A transpose of 2049x2048
// (4196352 elements, one per work item) and the copy of an input returned
// as an output run the rest in a grid-stride loop; every other kernel runs
// one work item per invocation. Both match the reference interpreter
// exactly, the last rows included.

// SCHED: dispatch transpose_{{[0-9]+}} groups [65535, 1, 1]
// SCHED: dispatch copy_{{[0-9]+}} groups [65535, 1, 1]

// CMP-DAG: compare t: {{.*}}: ok
// CMP-DAG: compare same: {{.*}}: ok
// CMP-NOT: FAIL

ag.forward @f(%x: tensor<2049x2048xf32> {ag.name = "x"})
    -> (tensor<2048x2049xf32> {ag.name = "t"}, tensor<2049x2048xf32> {ag.name = "same"}) {
  %t = ag.transpose %x permutation = [1, 0] : tensor<2049x2048xf32> -> tensor<2048x2049xf32>
  ag.return %t, %x : tensor<2048x2049xf32>, tensor<2049x2048xf32>
}
