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

// Every location kind names the user's line: through a name, the caller of
// a call site, the file part of a fused location. Two ops at one line
// through different kinds are one site; unknown locations are never merged.
// CHECK: error: capture guard: entry @kinds did work outside the graph while tracing, which a replay would not repeat: 5 uploads of host data at 4 sites.
// CHECK: policy.cpp:80:5: note: upload of host data here, 2 times
// CHECK: train.py:7:1: note: upload of host data here, 1 time
// CHECK: note: upload of host data here, 1 time
// CHECK: note: upload of host data here, 1 time
ag.forward @kinds(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %a = ag.upload : tensor<2xf32> loc("obs"("policy.cpp":80:5))
  %b = ag.upload : tensor<2xf32> loc(fused["policy.cpp":80:5, "lib.cpp":3:3])
  %c = ag.upload : tensor<2xf32> loc(callsite("lib.cpp":9:9 at "train.py":7:1))
  %d = ag.upload : tensor<2xf32> loc(unknown)
  %e = ag.upload : tensor<2xf32> loc(unknown)
  ag.return %x : tensor<2xf32>
}

// Two read-backs on one line (`a.item() + b.item()`) are one site counted
// twice; at two columns, the note names the line without a column (`:0`,
// which the tracer prints as file:line), not one of the two calls. Reads
// at one column keep it.
// CHECK: error: capture guard: entry @columns did work outside the graph while tracing, which a replay would not repeat: 5 downloads at 2 sites.
// CHECK: model.cpp:21:0: note: download (read-back) of a device value here, 3 times
// CHECK: model.cpp:22:9: note: download (read-back) of a device value here, 2 times
ag.forward @columns(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  ag.download %x : tensor<2xf32> loc("model.cpp":21:13)
  ag.download %x : tensor<2xf32> loc("model.cpp":21:30)
  ag.download %x : tensor<2xf32> loc("model.cpp":21:13)
  ag.download %x : tensor<2xf32> loc("model.cpp":22:9)
  ag.download %x : tensor<2xf32> loc("model.cpp":22:9)
  ag.return %x : tensor<2xf32>
}
