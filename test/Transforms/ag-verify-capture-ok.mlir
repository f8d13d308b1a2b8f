// RUN: capture-opt %s -ag-verify-capture | FileCheck %s

// A clean trace passes the guard unchanged.

// CHECK-LABEL: ag.forward @predict
// CHECK: %[[ONE:.*]] = ag.upload constant : tensor<f32> = dense<1.000000e+00>
// CHECK: ag.mul %{{.*}}, %[[ONE]]
ag.forward @predict(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %one = ag.upload constant : tensor<f32> = dense<1.0>
  %0 = ag.mul %x, %one : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  ag.return %0 : tensor<2xf32>
}
