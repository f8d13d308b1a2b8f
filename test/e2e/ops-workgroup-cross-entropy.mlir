// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module --dump-spirv %t/spv | FileCheck %s --check-prefix=FUSED
// RUN: for f in %t/spv/*.spv; do spirv-val --target-env vulkan1.1 $f || exit 1; done
// RUN: capture-interp %s --make-inputs %t/in --seed 5
// RUN: capture-run %t/m.capmod --input h=%t/in/h.npy --input b=%t/in/b.npy --input labels=%t/in/labels.npy --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s --input h=%t/in/h.npy --input b=%t/in/b.npy --input labels=%t/in/labels.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s
// RUN: capture-aot %s -o %t/ssbo.capmod --target=gpu
// RUN: capture-run %t/ssbo.capmod --input h=%t/in/h.npy --input b=%t/in/b.npy --input labels=%t/in/labels.npy --output-dir %t/gpu-ssbo > /dev/null
// RUN: capture-interp %s --input h=%t/in/h.npy --input b=%t/in/b.npy --input labels=%t/in/labels.npy --compare %t/gpu-ssbo --tolerance 1e-5 | FileCheck %s

// A classifier's loss head, as autodiff writes it, in one workgroup region
// against the interpreter on both read paths: the bias add, cross-entropy
// (logits computed in the region, labels read from their input), softmax
// and one_hot for the logits' gradient, the bias gradient's column sum,
// a log_softmax, a softmax along the batch axis and a value that reads
// the stored loss. 13 rows and 7 classes: not multiples of the 8 (or 32)
// invocations.

// FUSED-COUNT-1: dispatch workgroup_
// FUSED-NOT: dispatch

// CHECK-DAG: compare loss: {{.*}}: ok
// CHECK-DAG: compare grad: {{.*}}: ok
// CHECK-DAG: compare db: {{.*}}: ok
// CHECK-DAG: compare lsm: {{.*}}: ok
// CHECK-DAG: compare cols: {{.*}}: ok
// CHECK-DAG: compare scaled: {{.*}}: ok
// CHECK-NOT: FAIL

ag.forward @f(%h: tensor<13x7xf32> {ag.name = "h"}, %b: tensor<7xf32> {ag.name = "b"},
              %l: tensor<13xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<13x7xf32> {ag.name = "grad"},
        tensor<7xf32> {ag.name = "db"}, tensor<13x7xf32> {ag.name = "lsm"},
        tensor<13x7xf32> {ag.name = "cols"}, tensor<13x7xf32> {ag.name = "scaled"}) {
  %z = ag.add %h, %b : (tensor<13x7xf32>, tensor<7xf32>) -> tensor<13x7xf32>
  %loss = ag.cross_entropy %z, %l : (tensor<13x7xf32>, tensor<13xi32>) -> tensor<f32>
  %p = ag.softmax %z axis = 1 : tensor<13x7xf32>
  %oh = ag.one_hot %l : tensor<13xi32> -> tensor<13x7xf32>
  %d = ag.sub %p, %oh : (tensor<13x7xf32>, tensor<13x7xf32>) -> tensor<13x7xf32>
  %inv = ag.constant dense<0.0769230798> : tensor<f32>
  %g = ag.mul %d, %inv : (tensor<13x7xf32>, tensor<f32>) -> tensor<13x7xf32>
  %db = ag.sum %g axis = 0 : tensor<13x7xf32> -> tensor<7xf32>
  %lsm = ag.log_softmax %z axis = -1 : tensor<13x7xf32>
  %cols = ag.softmax %z axis = 0 : tensor<13x7xf32>
  %scaled = ag.mul %g, %loss : (tensor<13x7xf32>, tensor<f32>) -> tensor<13x7xf32>
  ag.return %loss, %g, %db, %lsm, %cols, %scaled : tensor<f32>, tensor<13x7xf32>, tensor<7xf32>, tensor<13x7xf32>, tensor<13x7xf32>, tensor<13x7xf32>
}
