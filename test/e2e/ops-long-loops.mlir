// DEFINE: %{inputs} = --input a=%t/in/a.npy --input b=%t/in/b.npy --input r=%t/in/r.npy --input c=%t/in/c.npy --input s=%t/in/s.npy --input e=%t/in/e.npy
// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod
// RUN: capture-interp %s --make-inputs %t/in --seed 11
// RUN: capture-run %t/m.capmod %{inputs} --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s %{inputs} --compare %t/gpu --tolerance 1e-5 | FileCheck %s
// RUN: capture-aot %s -o %t/unfused.capmod --fuse=false
// RUN: capture-run %t/unfused.capmod %{inputs} --output-dir %t/gpu-unfused > /dev/null
// RUN: capture-interp %s %{inputs} --compare %t/gpu-unfused --tolerance 1e-5 | FileCheck %s
// RUN: capture-run %t/m.capmod --info --json | FileCheck %s --check-prefix=INFO
// RUN: capture-aot %s -o %t/for-gpu.capmod --target=gpu
// RUN: capture-run %t/for-gpu.capmod --info --json | FileCheck %s --check-prefix=INFO-GPU
// RUN: not capture-run %t/for-gpu.capmod --device cpu %{inputs} 2>&1 | FileCheck %s --check-prefix=REFUSED

// Loops past llvmpipe's limit: it ends an invocation's loops after 65535
// iterations, all its loops together, and returns what they had by then.
// Each output here needs more in one invocation than that: a matmul whose
// K walk (blocks of 4) runs 67500 times, row sums, means and maxes over
// 70000 elements, a column sum over 70000 rows, softmax and log_softmax
// rows of 30000 (three passes each: 90000), and a mean squared error over
// 70000 elements. ag-bound-kernel-loops unrolls them under the limit;
// without it every compare fails (the sums off by 15-25%, the softmax
// rows by 100%). Both with regions (the default) and one kernel per op.

// CHECK-DAG: compare klong: {{.*}}: ok
// CHECK-DAG: compare rowsum: {{.*}}: ok
// CHECK-DAG: compare rowmean: {{.*}}: ok
// CHECK-DAG: compare rowmax: {{.*}}: ok
// CHECK-DAG: compare colsum: {{.*}}: ok
// CHECK-DAG: compare sm: {{.*}}: ok
// CHECK-DAG: compare lsm: {{.*}}: ok
// CHECK-DAG: compare mse: {{.*}}: ok
// CHECK-NOT: FAIL

// The module records what each kernel runs now (the matmul's 67500 K
// blocks unrolled 4x), and --info shows it.
// INFO: "name":"matmul_0",{{[^}]*}}"loop_iterations":16875,
// INFO: "name":"sum_1",{{[^}]*}}"loop_iterations":17500,
// INFO-GPU: "name":"matmul_0",{{[^}]*}}"loop_iterations":67500,

// The gpu target unrolls nothing (GPUs have no such limit) but records
// each kernel's bound, so lavapipe refuses the module instead of running
// it wrong.
// REFUSED: capture-run: error: {{.*}}kernel {{[0-9]+}} ('matmul_0') runs up to 67500 loop iterations in one invocation (compile the module with capture-aot --target=lavapipe, which unrolls them): llvmpipe ends an invocation's loops after 65535, which would make the results wrong on device '{{.*}}llvmpipe

ag.forward @f(%a: tensor<2x270000xf32> {ag.name = "a"}, %b: tensor<3x270000xf32> {ag.name = "b"},
              %r: tensor<2x70000xf32> {ag.name = "r"}, %c: tensor<70000x3xf32> {ag.name = "c"},
              %s: tensor<2x30000xf32> {ag.name = "s"}, %e: tensor<2x70000xf32> {ag.name = "e"})
    -> (tensor<2x3xf32> {ag.name = "klong"}, tensor<2xf32> {ag.name = "rowsum"},
        tensor<2xf32> {ag.name = "rowmean"}, tensor<2xf32> {ag.name = "rowmax"},
        tensor<3xf32> {ag.name = "colsum"}, tensor<2x30000xf32> {ag.name = "sm"},
        tensor<2x30000xf32> {ag.name = "lsm"}, tensor<f32> {ag.name = "mse"}) {
  %0 = ag.matmul %a, %b {transpose_b} : (tensor<2x270000xf32>, tensor<3x270000xf32>) -> tensor<2x3xf32>
  %1 = ag.sum %r axis = 1 : tensor<2x70000xf32> -> tensor<2xf32>
  %2 = ag.mean %r axis = -1 : tensor<2x70000xf32> -> tensor<2xf32>
  %3 = ag.max %r axis = 1 : tensor<2x70000xf32> -> tensor<2xf32>
  %4 = ag.sum %c axis = 0 : tensor<70000x3xf32> -> tensor<3xf32>
  %5 = ag.softmax %s axis = -1 : tensor<2x30000xf32>
  %6 = ag.log_softmax %s axis = 1 : tensor<2x30000xf32>
  %7 = ag.mse %r, %e : (tensor<2x70000xf32>, tensor<2x70000xf32>) -> tensor<f32>
  ag.return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<3xf32>, tensor<2x30000xf32>, tensor<2x30000xf32>, tensor<f32>
}
