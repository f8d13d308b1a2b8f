// RUN: capture-opt %s -split-input-file -verify-diagnostics

// Element types ag does not hold (index, complex, f16, bf16, f64, i64, i1)
// are verifier errors naming the type wherever a tensor appears: entries,
// weights and ops. An index or complex element type has no bit width, and
// the verifier used to crash asking for one.

// expected-error @+1 {{'ag.forward' op input #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<2xindex>'}}
ag.forward @f(%x: tensor<2xindex> {ag.name = "x"}) -> () {
  ag.return
}

// -----

// expected-error @+1 {{'ag.forward' op input #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<2xcomplex<f32>>'}}
ag.forward @f(%x: tensor<2xcomplex<f32>> {ag.name = "x"}) -> () {
  ag.return
}

// -----

// expected-error @+1 {{'ag.forward' op input #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<2xbf16>'}}
ag.forward @f(%x: tensor<2xbf16> {ag.name = "x"}) -> () {
  ag.return
}

// -----

// expected-error @+1 {{'ag.forward' op input #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<2xi1>'}}
ag.forward @f(%x: tensor<2xi1> {ag.name = "x"}) -> () {
  ag.return
}

// -----

// expected-error @+1 {{'ag.forward' op output #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<2xindex>'}}
ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xindex> {ag.name = "y"}) {
  %c = arith.constant dense<1> : tensor<2xindex>
  ag.return %c : tensor<2xindex>
}

// -----

// expected-error @+1 {{'ag.forward' op output #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<2xf64>'}}
ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf64> {ag.name = "y"}) {
  %c = arith.constant dense<1.0> : tensor<2xf64>
  ag.return %c : tensor<2xf64>
}

// -----

// expected-error @+1 {{'ag.train_step' op input #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<4xindex>'}}
ag.train_step @t(%x: tensor<4xindex> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %l = ag.constant dense<1.0> : tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// expected-error @+1 {{'ag.train_step' op input #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<4xi64>'}}
ag.train_step @t(%x: tensor<4xi64> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %l = ag.constant dense<1.0> : tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// Weights are f32 tensors.
// expected-error @+1 {{'ag.weight' op attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float values}}
ag.weight @w : tensor<2xindex>

// -----

// expected-error @+1 {{'ag.weight' op attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float values}}
ag.weight @w trainable : tensor<2xcomplex<f32>>

// -----

// expected-error @+1 {{'ag.weight' op attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float values}}
ag.weight @w : tensor<2xf16>

// -----

// expected-error @+1 {{'ag.weight' op attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float values}}
ag.weight @w : tensor<2xbf16>

// -----

// expected-error @+1 {{'ag.weight' op attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float values}}
ag.weight @w : tensor<2xf64>

// -----

// expected-error @+1 {{'ag.weight' op attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float values}}
ag.weight @w : tensor<2xi64>

// -----

// expected-error @+1 {{'ag.weight' op attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float values}}
ag.weight @w : tensor<2xi1>

// -----

// Ops whose operands and results are any ranked tensor (ag.eager, the
// dispatch regions) name the element type; the others' own constraints do.
ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.eager' op result #0 has type 'tensor<2xindex>': expected a tensor of f32 (values), i32 (labels, row indices) or i8 (packed I/O bytes), but its element type is 'index'}}
  %e = ag.eager "k" () : () -> tensor<2xindex>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.eager' op result #0 has type 'tensor<2xcomplex<f32>>': expected a tensor of f32 (values), i32 (labels, row indices) or i8 (packed I/O bytes), but its element type is 'complex<f32>'}}
  %e = ag.eager "k" () : () -> tensor<2xcomplex<f32>>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.eager' op result #0 has type 'tensor<2xf16>': expected a tensor of f32 (values), i32 (labels, row indices) or i8 (packed I/O bytes), but its element type is 'f16'}}
  %e = ag.eager "k" () : () -> tensor<2xf16>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.eager' op result #1 has type 'tensor<2xbf16>': expected a tensor of f32 (values), i32 (labels, row indices) or i8 (packed I/O bytes), but its element type is 'bf16'}}
  %e:2 = ag.eager "k" () : () -> (tensor<2xf32>, tensor<2xbf16>)
  ag.return
}

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.eager' op result #0 has type 'tensor<2xf64>': expected a tensor of f32 (values), i32 (labels, row indices) or i8 (packed I/O bytes), but its element type is 'f64'}}
  %e = ag.eager "k" () : () -> tensor<2xf64>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.eager' op result #0 has type 'tensor<2xi64>': expected a tensor of f32 (values), i32 (labels, row indices) or i8 (packed I/O bytes), but its element type is 'i64'}}
  %e = ag.eager "k" () : () -> tensor<2xi64>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  %c = arith.constant dense<true> : tensor<2xi1>
  // expected-error @+1 {{'ag.eager' op operand #1 has type 'tensor<2xi1>': expected a tensor of f32 (values), i32 (labels, row indices) or i8 (packed I/O bytes), but its element type is 'i1'}}
  ag.eager "k" (%x, %c) : (tensor<2xf32>, tensor<2xi1>) -> ()
  ag.return
}

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  %c = arith.constant dense<1> : tensor<2xindex>
  // expected-error @+1 {{'ag.dispatch_region' op operand #1 has type 'tensor<2xindex>': expected a tensor of f32 (values), i32 (labels, row indices) or i8 (packed I/O bytes), but its element type is 'index'}}
  %r = ag.dispatch_region elementwise ins(%x, %c : tensor<2xf32>, tensor<2xindex>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>, %i: tensor<2xindex>):
    %y = ag.exp %a : tensor<2xf32>
    ag.yield %y : tensor<2xf32>
  }
  ag.return
}

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.constant' op result #0 must be ranked tensor of 32-bit float values, but got 'tensor<2xindex>'}}
  %c = ag.constant dense<1> : tensor<2xindex>
  ag.return
}

// -----

ag.forward @f(%t: tensor<3x4xf32> {ag.name = "t"}) -> () {
  %c = arith.constant dense<1> : tensor<2xi64>
  // expected-error @+1 {{'ag.get_rows' op operand #1 must be ranked tensor of 32-bit signless integer values, but got 'tensor<2xi64>'}}
  %r = ag.get_rows %t, %c : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  ag.return
}

// -----

// A packed entry's layout segments hold f32 or i32 (a segment's byte size
// needs a bit width).
// expected-error @+1 {{'ag.forward' op segment "x" has element type 'index', expected f32 or i32}}
ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {
    ag.input_layout = [#ag.segment<"x", [2], index, offset = 0>],
    ag.output_layout = []} {
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// expected-error @+1 {{'ag.forward' op segment "y" has element type 'complex<f32>', expected f32 or i32}}
ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {
    ag.input_layout = [],
    ag.output_layout = [#ag.segment<"y", [1], complex<f32>, offset = 0>]} {
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}
