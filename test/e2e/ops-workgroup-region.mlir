// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module --dump-spirv %t/spv | FileCheck %s --check-prefix=FUSED
// RUN: for f in %t/spv/*.spv; do spirv-val --target-env vulkan1.1 $f || exit 1; done
// RUN: capture-interp %s --make-inputs %t/in --seed 7
// RUN: capture-run %t/m.capmod --input h=%t/in/h.npy --input t=%t/in/t.npy --input b=%t/in/b.npy --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s --input h=%t/in/h.npy --input t=%t/in/t.npy --input b=%t/in/b.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s
// RUN: capture-aot %s -o %t/ssbo.capmod --target=gpu
// RUN: capture-run %t/ssbo.capmod --input h=%t/in/h.npy --input t=%t/in/t.npy --input b=%t/in/b.npy --output-dir %t/gpu-ssbo > /dev/null
// RUN: capture-interp %s --input h=%t/in/h.npy --input t=%t/in/t.npy --input b=%t/in/b.npy --compare %t/gpu-ssbo --tolerance 1e-5 | FileCheck %s
// RUN: capture-aot %s -o %t/cpu.capmod --target=cpu --print-module | FileCheck %s --check-prefix=CPU
// RUN: capture-run %t/cpu.capmod --device vulkan --input h=%t/in/h.npy --input t=%t/in/t.npy --input b=%t/in/b.npy --output-dir %t/gpu-cpu > /dev/null
// RUN: capture-interp %s --input h=%t/in/h.npy --input t=%t/in/t.npy --input b=%t/in/b.npy --compare %t/gpu-cpu --tolerance 1e-5 | FileCheck %s

// A module for the cpu target carries the kernels as host code beside their
// SPIR-V, which (shaped for one-invocation subgroups) runs right on Vulkan.
// CPU: host code: x86-64-v3 (x86_64-unknown-linux-gnu), {{[0-9]+}} bytes, entry capture_k_<kernel>

// A loss head as one workgroup region against the interpreter, on both
// read paths: sums along either axis (one kept), a max, a mean, an mse,
// a reshape, broadcasts of stored reductions into later stages, a
// reduction of a reduction, and results that are reductions and results
// that are not. Sizes are not multiples of the 8 (or 32) invocations.

// FUSED-COUNT-1: dispatch workgroup_
// FUSED-NOT: dispatch

// CHECK-DAG: compare loss: {{.*}}: ok
// CHECK-DAG: compare rows: {{.*}}: ok
// CHECK-DAG: compare cols: {{.*}}: ok
// CHECK-DAG: compare grad: {{.*}}: ok
// CHECK-DAG: compare flat: {{.*}}: ok
// CHECK-NOT: FAIL

ag.forward @f(%h: tensor<13x7xf32> {ag.name = "h"}, %t: tensor<13xf32> {ag.name = "t"},
              %b: tensor<7xf32> {ag.name = "b"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<13xf32> {ag.name = "rows"},
        tensor<1x7xf32> {ag.name = "cols"}, tensor<13x7xf32> {ag.name = "grad"},
        tensor<91xf32> {ag.name = "flat"}) {
  %z = ag.add %h, %b : (tensor<13x7xf32>, tensor<7xf32>) -> tensor<13x7xf32>
  %mx = ag.max %z axis = 1 : tensor<13x7xf32> -> tensor<13xf32>
  %mxc = ag.reshape %mx : tensor<13xf32> -> tensor<13x1xf32>
  %d = ag.sub %z, %mxc : (tensor<13x7xf32>, tensor<13x1xf32>) -> tensor<13x7xf32>
  %e = ag.exp %d : tensor<13x7xf32>
  %rows = ag.sum %e axis = 1 : tensor<13x7xf32> -> tensor<13xf32>
  %cols = ag.sum %e axis = 0 keepdim : tensor<13x7xf32> -> tensor<1x7xf32>
  %se = ag.mse %rows, %t : (tensor<13xf32>, tensor<13xf32>) -> tensor<f32>
  %m = ag.mean %cols : tensor<1x7xf32> -> tensor<f32>
  %loss = ag.add %se, %m : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %g0 = ag.mul %e, %loss : (tensor<13x7xf32>, tensor<f32>) -> tensor<13x7xf32>
  %grad = ag.div %g0, %cols : (tensor<13x7xf32>, tensor<1x7xf32>) -> tensor<13x7xf32>
  %flat = ag.reshape %grad : tensor<13x7xf32> -> tensor<91xf32>
  %half = ag.constant dense<0.5> : tensor<f32>
  %flat2 = ag.mul %flat, %half : (tensor<91xf32>, tensor<f32>) -> tensor<91xf32>
  ag.return %loss, %rows, %cols, %grad, %flat2 : tensor<f32>, tensor<13xf32>, tensor<1x7xf32>, tensor<13x7xf32>, tensor<91xf32>
}
