// RUN: capture-opt %s -split-input-file -verify-diagnostics

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.dispatch_region' op yields 'tensor<2x2xf32>', but the result is 'tensor<4xf32>'}}
  %r = ag.dispatch_region elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %c = ag.constant dense<1.0> : tensor<2x2xf32>
    ag.yield %c : tensor<2x2xf32>
  }
  ag.return %r : tensor<4xf32>
}

// -----

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.dispatch_region' op body argument 0 is 'tensor<8xf32>', but input 0 is 'tensor<4xf32>'}}
  %r = ag.dispatch_region elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<8xf32>):
    %n = ag.neg %a : tensor<8xf32>
    ag.yield %n : tensor<8xf32>
  }
  ag.return %r : tensor<4xf32>
}

// -----

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.dispatch_region' op body has 0 arguments for 1 inputs}}
  %r = ag.dispatch_region elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
    %c = ag.constant dense<1.0> : tensor<4xf32>
    ag.yield %c : tensor<4xf32>
  }
  ag.return %r : tensor<4xf32>
}

// -----

ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region elementwise ins(%x : tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    // expected-error @+1 {{'ag.matmul' op cannot be in an elementwise dispatch region: expected an elementwise op or a splat ag.constant}}
    %m = ag.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    ag.yield %m : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}

// -----

ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}, %v: tensor<4xf32> {ag.name = "v"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region elementwise ins(%x, %v : tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4xf32>):
    // expected-error @+1 {{'ag.exp' op has shape [4] in an elementwise dispatch region of shape [4, 4]: every op must produce the region's shape or one element}}
    %e = ag.exp %b : tensor<4xf32>
    %s = ag.add %a, %e : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
    ag.yield %s : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}

// -----

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'ag.constant' op cannot be in an elementwise dispatch region: expected an elementwise op or a splat ag.constant}}
    %c = ag.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %s = ag.add %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ag.yield %s : tensor<4xf32>
  }
  ag.return %r : tensor<4xf32>
}
