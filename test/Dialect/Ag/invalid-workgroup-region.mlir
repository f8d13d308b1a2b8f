// RUN: capture-opt %s -split-input-file -verify-diagnostics

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.workgroup_region' op yields ('tensor<4xf32>'), but the results are ('tensor<f32>')}}
  %r = ag.workgroup_region ins(%x : tensor<4xf32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<4xf32>):
    %n = ag.neg %a : tensor<4xf32>
    ag.yield %n : tensor<4xf32>
  }
  ag.return %r : tensor<f32>
}

// -----

ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  %r = ag.workgroup_region ins(%x : tensor<4x4xf32>) -> (tensor<4x4xf32>) {
  ^bb0(%a: tensor<4x4xf32>):
    // expected-error @+1 {{'ag.matmul' op cannot be in a workgroup region: expected elementwise ops, splat ag.constants, ag.reshape, ag.sum, ag.mean, ag.max or ag.mse}}
    %m = ag.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    ag.yield %m : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}

// -----

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.workgroup_region' op body has 0 arguments for 1 inputs}}
  %r = ag.workgroup_region ins(%x : tensor<4xf32>) -> (tensor<4xf32>) {
    %c = ag.constant dense<1.0> : tensor<4xf32>
    ag.yield %c : tensor<4xf32>
  }
  ag.return %r : tensor<4xf32>
}
