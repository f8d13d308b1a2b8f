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
    // expected-error @+1 {{'ag.matmul' op cannot be in a workgroup region: expected elementwise ops, splat ag.constants, ag.reshape, ag.one_hot, ag.sum, ag.mean, ag.max, ag.mse, ag.softmax, ag.log_softmax or ag.cross_entropy}}
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

// -----

// The kernel loads labels from their binding: a reshape in the region
// cannot make them.
ag.forward @f(%l: tensor<1x4xi32> {ag.name = "l"}) -> (tensor<4x3xf32> {ag.name = "y"}) {
  %r = ag.workgroup_region ins(%l : tensor<1x4xi32>) -> (tensor<4x3xf32>) {
  ^bb0(%a: tensor<1x4xi32>):
    %f = ag.reshape %a : tensor<1x4xi32> -> tensor<4xi32>
    // expected-error @+1 {{'ag.one_hot' op reads its labels from a value computed in the workgroup region; expected a block argument (an input of the region)}}
    %h = ag.one_hot %f : tensor<4xi32> -> tensor<4x3xf32>
    ag.yield %h : tensor<4x3xf32>
  }
  ag.return %r : tensor<4x3xf32>
}

// -----

ag.forward @f(%x: tensor<4x3xf32> {ag.name = "x"}, %l: tensor<1x4xi32> {ag.name = "l"}) -> (tensor<f32> {ag.name = "y"}) {
  %r = ag.workgroup_region ins(%x, %l : tensor<4x3xf32>, tensor<1x4xi32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<4x3xf32>, %b: tensor<1x4xi32>):
    %f = ag.reshape %b : tensor<1x4xi32> -> tensor<4xi32>
    // expected-error @+1 {{'ag.cross_entropy' op reads its labels from a value computed in the workgroup region; expected a block argument (an input of the region)}}
    %c = ag.cross_entropy %a, %f : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<f32>
    ag.yield %c : tensor<f32>
  }
  ag.return %r : tensor<f32>
}

// -----

"ag.forward"() <{arg_attrs = [{ag.name = "x"}], res_attrs = [{ag.name = "y"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}> ({
^bb0(%x: tensor<4xf32>):
  // expected-error @+1 {{'ag.workgroup_region' op has no results, expected at least one}}
  "ag.workgroup_region"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    "ag.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  "ag.return"(%x) : (tensor<4xf32>) -> ()
}) : () -> ()
