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
    // expected-error @+1 {{'ag.matmul' op cannot be in an elementwise dispatch region: expected elementwise ops or splat ag.constants}}
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
    // expected-error @+1 {{'ag.constant' op cannot be in an elementwise dispatch region: expected elementwise ops or splat ag.constants}}
    %c = ag.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %s = ag.add %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ag.yield %s : tensor<4xf32>
  }
  ag.return %r : tensor<4xf32>
}

// -----

ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.dispatch_region' op of kind matmul has no ag.matmul}}
  %r = ag.dispatch_region matmul ins(%x : tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %n = ag.neg %a : tensor<4x4xf32>
    ag.yield %n : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}

// -----

ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region matmul ins(%x : tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %n = ag.constant dense<1.0> : tensor<4x4xf32>
    // expected-error @+1 {{'ag.matmul' op in a matmul dispatch region must multiply region inputs (block arguments)}}
    %m = ag.matmul %n, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    ag.yield %m : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}

// -----

ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region matmul ins(%x : tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %m = ag.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    // expected-error @+1 {{'ag.matmul' op must be the first op (after splat constants) and the only matmul of a matmul dispatch region}}
    %m2 = ag.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %s = ag.add %m, %m2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    ag.yield %s : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}

// -----

ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}, %b: tensor<4x4xf32> {ag.name = "b"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region matmul ins(%x, %b : tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %c: tensor<4x4xf32>):
    %m = ag.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    // expected-error @+1 {{'ag.sum' op cannot be in a matmul dispatch region: expected one leading ag.matmul, then elementwise ops or splat ag.constants}}
    %s = ag.sum %m : tensor<4x4xf32> -> tensor<f32>
    %t = ag.add %c, %s : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    ag.yield %t : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}

// -----

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.dispatch_region' op of kind reduction must yield the result of its last op: its ag.sum, ag.mean or ag.max, or the end of its epilogue}}
  %r = ag.dispatch_region reduction ins(%x : tensor<4xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4xf32>):
    %s = ag.sum %a : tensor<4xf32> -> tensor<f32>
    %n = ag.neg %s : tensor<f32>
    ag.yield %s : tensor<f32>
  }
  ag.return %r : tensor<f32>
}

// -----

// An epilogue may read single-element inputs (a poison), not whole ones.
ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<2xf32> {ag.name = "y"}) -> (tensor<2xf32> {ag.name = "z"}) {
  %r = ag.dispatch_region reduction ins(%x, %y : tensor<2x3xf32>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2x3xf32>, %b: tensor<2xf32>):
    %s = ag.sum %a axis = 1 : tensor<2x3xf32> -> tensor<2xf32>
    // expected-error @+1 {{'ag.mul' op after the reduction of a reduction dispatch region must be elementwise, of the reduced value's type, on the reduced value, splat constants and single-element inputs only}}
    %n = ag.mul %s, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ag.yield %n : tensor<2xf32>
  }
  ag.return %r : tensor<2xf32>
}

// -----

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.dispatch_region' op of kind reduction has no ag.sum, ag.mean or ag.max}}
  %r = ag.dispatch_region reduction ins(%x : tensor<4xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4xf32>):
    %c = ag.constant dense<1.0> : tensor<f32>
    ag.yield %c : tensor<f32>
  }
  ag.return %r : tensor<f32>
}

// -----

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}, %y: tensor<8xf32> {ag.name = "y"}) -> (tensor<f32> {ag.name = "z"}) {
  %r = ag.dispatch_region reduction ins(%x, %y : tensor<4xf32>, tensor<8xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<8xf32>):
    // expected-error @+1 {{'ag.exp' op has shape [8] in a reduction dispatch region of shape [4]: every op must produce the region's shape or one element}}
    %e = ag.exp %b : tensor<8xf32>
    %s = ag.sum %a : tensor<4xf32> -> tensor<f32>
    ag.yield %s : tensor<f32>
  }
  ag.return %r : tensor<f32>
}

// -----

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.dispatch_region' op marked 'ag.update_prologue' must be elementwise and used only as the gradients of one ag.apply_adamw}}
  %r = ag.dispatch_region elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> attributes {ag.update_prologue} {
  ^bb0(%a: tensor<4xf32>):
    %n = ag.neg %a : tensor<4xf32>
    ag.yield %n : tensor<4xf32>
  }
  ag.return %r : tensor<4xf32>
}

// -----

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.dispatch_region' op yields 2 values for 1 results}}
  %r = ag.dispatch_region elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %n = ag.neg %a : tensor<4xf32>
    ag.yield %n, %n : tensor<4xf32>, tensor<4xf32>
  }
  ag.return %r : tensor<4xf32>
}

// -----

ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.dispatch_region' op has 2 results: only a matmul region with transpose_a may have a second, the ag.sum along axis 0 (no keepdim) of its matmul's left operand}}
  %r:2 = ag.dispatch_region elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %n = ag.neg %a : tensor<4xf32>
    ag.yield %n, %n : tensor<4xf32>, tensor<4xf32>
  }
  ag.return %r#0 : tensor<4xf32>
}

// -----

// The sums must be of the matmul's left operand.
ag.forward @f(%x: tensor<5x3xf32> {ag.name = "x"}, %y: tensor<5x4xf32> {ag.name = "y"}) -> (tensor<3x4xf32> {ag.name = "w"}) {
  // expected-error @+1 {{'ag.dispatch_region' op has 2 results: only a matmul region with transpose_a may have a second}}
  %r:2 = ag.dispatch_region matmul ins(%x, %y : tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>, tensor<4xf32> {
  ^bb0(%a: tensor<5x3xf32>, %b: tensor<5x4xf32>):
    %m = ag.matmul %a, %b {transpose_a} : (tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
    %s = ag.sum %b axis = 0 : tensor<5x4xf32> -> tensor<4xf32>
    ag.yield %m, %s : tensor<3x4xf32>, tensor<4xf32>
  }
  ag.return %r#0 : tensor<3x4xf32>
}

// -----

// The generic form, since the custom one always ends the body with ag.yield.
"ag.forward"() <{arg_attrs = [{ag.name = "x"}], res_attrs = [{ag.name = "y"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}> ({
^bb0(%x: tensor<4xf32>):
  // expected-error @+1 {{'ag.dispatch_region' op body must end with ag.yield}}
  %r = "ag.dispatch_region"(%x) <{kind = 1 : i32}> ({
  ^bb0(%a: tensor<4xf32>):
    "ag.return"(%a) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  "ag.return"(%r) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

"ag.forward"() <{arg_attrs = [{ag.name = "x"}], res_attrs = [{ag.name = "y"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}> ({
^bb0(%x: tensor<4xf32>):
  // expected-error @+1 {{'ag.dispatch_region' op has no results, expected 1}}
  "ag.dispatch_region"(%x) <{kind = 1 : i32}> ({
  ^bb0(%a: tensor<4xf32>):
    "ag.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  "ag.return"(%x) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// The epilogue broadcasts the [4, 1] product up to the region's [4, 4].
ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}, %w: tensor<4x1xf32> {ag.name = "w"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region matmul ins(%x, %w, %x : tensor<4x4xf32>, tensor<4x1xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>, %c: tensor<4x4xf32>):
    // expected-error @+1 {{'ag.matmul' op has shape [4, 1], but its matmul dispatch region has shape [4, 4]}}
    %m = ag.matmul %a, %b : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %s = ag.add %c, %m : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
    ag.yield %s : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}
