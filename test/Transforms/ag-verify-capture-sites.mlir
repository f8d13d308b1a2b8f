// RUN: not capture-opt %s -ag-verify-capture 2>&1 | FileCheck %s

// The guard names the tracer's call sites (the user's file and line), counts
// repeats of a site (a loop in user code), explains the fix, and lets
// data-independent constants through.

// CHECK: error: capture guard: entry @step did work outside the graph while tracing, which a replay would not repeat: 3 uploads of host data, 1 download, 2 eager launches at 4 sites.
// CHECK-SAME: Pass data the step depends on as an entry input; keep weights resident on the device (ag.weight + ag.read_weight); do not read values back inside the step
// CHECK: policy.cpp:12:7: note: upload of host data here, 2 times
// CHECK: policy.cpp:40:3: note: upload of host data here, 1 time
// CHECK: policy.cpp:60:9: note: download (read-back) of a device value here, 1 time
// CHECK: policy.cpp:70:2: note: eager launch of 'relu' here, 2 times
// CHECK-NOT: policy.cpp:50
ag.forward @step(%x: tensor<2x4xf32> {ag.name = "x"}) -> (tensor<2x4xf32> {ag.name = "y"}) {
  %m1 = ag.upload : tensor<2x4xf32> loc("policy.cpp":12:7)
  %m2 = ag.upload : tensor<2x4xf32> loc("policy.cpp":12:7)
  %m3 = ag.upload : tensor<2x4xf32> loc("policy.cpp":40:3)
  %seed = ag.upload constant : tensor<f32> = dense<1.0> loc("policy.cpp":50:1)
  %0 = ag.mul %x, %m1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ag.download %0 : tensor<2x4xf32> loc("policy.cpp":60:9)
  %e1 = ag.eager "relu" (%0) : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("policy.cpp":70:2)
  %e2 = ag.eager "relu" (%0) : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("policy.cpp":70:2)
  ag.return %e2 : tensor<2x4xf32>
}
