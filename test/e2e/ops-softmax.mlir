// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=FUSED
// RUN: capture-interp %s --make-inputs %t/in --seed 3
// RUN: capture-run %t/m.capmod --input x=%t/in/x.npy --input v=%t/in/v.npy --output-dir %t/gpu | FileCheck %s --check-prefix=REPLAY
// RUN: capture-interp %s --input x=%t/in/x.npy --input v=%t/in/v.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s --check-prefix=CMP
// RUN: capture-aot %s -o %t/unfused.capmod --fuse=false --print-module | FileCheck %s --check-prefix=UNFUSED
// RUN: capture-run %t/unfused.capmod --input x=%t/in/x.npy --input v=%t/in/v.npy --output-dir %t/gpu-unfused | FileCheck %s --check-prefix=REPLAY
// RUN: capture-interp %s --input x=%t/in/x.npy --input v=%t/in/v.npy --compare %t/gpu-unfused --tolerance 1e-5 | FileCheck %s --check-prefix=CMP

// End to end: ag.softmax and ag.log_softmax along the last axis (negative
// and positive spelling), along the first and a middle axis of a 3-D
// tensor, over more rows than a workgroup has invocations, on a rank-1
// tensor, and on large logits, where exp without subtracting the row max
// overflows to inf (and the results to NaN): shifted by 100 (exp(100) >
// FLT_MAX, results far from one-hot) and scaled to +-1000 (nearly one-hot).
// The device must print finite values there. Fused (the default), every
// softmax is a stage of one workgroup kernel (the tensors are small);
// with --fuse=false each is its own row-parallel kernel.

// FUSED-COUNT-1: dispatch workgroup_softmax_
// FUSED-NOT: dispatch
// UNFUSED-NOT: dispatch workgroup_
// UNFUSED-COUNT-5: dispatch softmax_
// UNFUSED-NOT: dispatch workgroup_

// REPLAY-LABEL: device:
// REPLAY-NOT: {{nan|inf}}
// REPLAY: output sm_shift [130, 7]:
// REPLAY-NOT: {{nan|inf}}
// REPLAY: output lsm_shift [130, 7]:
// REPLAY-NOT: {{nan|inf}}
// REPLAY: output sm_big [130, 7]:
// REPLAY-NOT: {{nan|inf}}
// REPLAY: output lsm_big [130, 7]:
// REPLAY-NOT: {{nan|inf}}
// REPLAY: replay:

// CMP-DAG: compare sm_last: {{.*}}: ok
// CMP-DAG: compare lsm_last: {{.*}}: ok
// CMP-DAG: compare sm_first: {{.*}}: ok
// CMP-DAG: compare lsm_mid: {{.*}}: ok
// CMP-DAG: compare sm_shift: {{.*}}: ok
// CMP-DAG: compare lsm_shift: {{.*}}: ok
// CMP-DAG: compare sm_big: {{.*}}: ok
// CMP-DAG: compare lsm_big: {{.*}}: ok
// CMP-DAG: compare sm_v: {{.*}}: ok
// CMP-DAG: compare lsm_v: {{.*}}: ok
// CMP-NOT: FAIL

ag.forward @f(%x: tensor<130x7xf32> {ag.name = "x"}, %v: tensor<9xf32> {ag.name = "v"})
    -> (tensor<130x7xf32> {ag.name = "sm_last"}, tensor<130x7xf32> {ag.name = "lsm_last"},
        tensor<10x13x7xf32> {ag.name = "sm_first"}, tensor<10x13x7xf32> {ag.name = "lsm_mid"},
        tensor<130x7xf32> {ag.name = "sm_shift"}, tensor<130x7xf32> {ag.name = "lsm_shift"},
        tensor<130x7xf32> {ag.name = "sm_big"}, tensor<130x7xf32> {ag.name = "lsm_big"},
        tensor<9xf32> {ag.name = "sm_v"}, tensor<9xf32> {ag.name = "lsm_v"}) {
  %k = ag.constant dense<1000.0> : tensor<1xf32>
  %c = ag.constant dense<100.0> : tensor<1xf32>
  %0 = ag.softmax %x axis = -1 : tensor<130x7xf32>
  %1 = ag.log_softmax %x axis = 1 : tensor<130x7xf32>
  %x3 = ag.reshape %x : tensor<130x7xf32> -> tensor<10x13x7xf32>
  %2 = ag.softmax %x3 axis = -3 : tensor<10x13x7xf32>
  %3 = ag.log_softmax %x3 axis = 1 : tensor<10x13x7xf32>
  %shift = ag.add %x, %c : (tensor<130x7xf32>, tensor<1xf32>) -> tensor<130x7xf32>
  %s0 = ag.softmax %shift axis = -1 : tensor<130x7xf32>
  %s1 = ag.log_softmax %shift axis = -1 : tensor<130x7xf32>
  %big = ag.mul %x, %k : (tensor<130x7xf32>, tensor<1xf32>) -> tensor<130x7xf32>
  %4 = ag.softmax %big axis = -1 : tensor<130x7xf32>
  %5 = ag.log_softmax %big axis = -1 : tensor<130x7xf32>
  %6 = ag.softmax %v axis = 0 : tensor<9xf32>
  %7 = ag.log_softmax %v axis = -1 : tensor<9xf32>
  ag.return %0, %1, %2, %3, %s0, %s1, %4, %5, %6, %7
      : tensor<130x7xf32>, tensor<130x7xf32>, tensor<10x13x7xf32>, tensor<10x13x7xf32>,
        tensor<130x7xf32>, tensor<130x7xf32>, tensor<130x7xf32>, tensor<130x7xf32>, tensor<9xf32>, tensor<9xf32>
}
