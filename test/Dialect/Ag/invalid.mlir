// RUN: capture-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'ag.weight' op expects a static shape, but @w has shape [?, 4]}}
ag.weight @w : tensor<?x4xf32>

// -----

// expected-error @+1 {{'ag.weight' op initial value has type 'tensor<3xf32>' but the weight is 'tensor<4xf32>'}}
"ag.weight"() <{sym_name = "w", type = tensor<4xf32>, initial_value = dense<1.0> : tensor<3xf32>}> : () -> ()

// -----

// expected-error @+1 {{expected a dense elements initial value}}
ag.weight @w : tensor<4xf32> = "nope"

// -----

// expected-error @+1 {{'ag.forward' op input #0 needs a name: add {ag.name = "..."}}}
ag.forward @f(%x: tensor<2xf32>) -> (tensor<2xf32> {ag.name = "y"}) {
  ag.return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'ag.forward' op output #0 needs a name}}
ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> tensor<2xf32> {
  ag.return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'ag.forward' op input name "x" is used more than once}}
ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}, %y: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  ag.return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'ag.forward' op output name "y" is used more than once}}
ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}, tensor<2xf32> {ag.name = "y"}) {
  ag.return %x, %x : tensor<2xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{'ag.forward' op input #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<?xf32>'}}
ag.forward @f(%x: tensor<?xf32> {ag.name = "x"}) -> () {
  ag.return
}

// -----

// expected-error @+1 {{'ag.forward' op output #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<2xi64>'}}
ag.forward @f() -> (tensor<2xi64> {ag.name = "y"}) {
  %e = ag.eager "k" () : () -> tensor<2xi64>
  ag.return %e : tensor<2xi64>
}


// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  %a = ag.probe "p" %x : tensor<2xf32>
  // expected-error @+1 {{'ag.probe' op probe name "p" is used more than once in entry @f}}
  %b = ag.probe "p" %x : tensor<2xf32>
  ag.return
}

// -----

// expected-error @+1 {{'ag.forward' op a packed entry takes one input buffer and returns one output buffer, but has type '(tensor<16xi8>) -> ()'}}
ag.forward @f(%in: tensor<16xi8>) -> () attributes {ag.input_layout = [], ag.output_layout = []} {
  ag.return
}

// -----

// expected-error @+1 {{'ag.forward' op a packed entry's buffers must be static 1-D i8 tensors, but found 'tensor<4xf32>'}}
ag.forward @f(%in: tensor<4xf32>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// expected-error @+1 {{'ag.forward' op 'ag.output_layout' holds a non-segment attribute 1 : i64}}
ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = [1]} {
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// expected-error @+1 {{'ag.forward' op expects 'ag.output_layout' to be an array of #ag.segment}}
ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = []} {
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// expected-error @+1 {{'ag.forward' op 'ag.input_layout' names "x" more than once}}
ag.forward @f(%in: tensor<64xi8>) -> tensor<16xi8> attributes {
    ag.input_layout = [#ag.segment<"x", [2], f32, offset = 0>, #ag.segment<"x", [2], f32, offset = 16>],
    ag.output_layout = []} {
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// expected-error @+1 {{'ag.forward' op segment "x" at offset 8 (16 bytes) does not fit the 16-byte buffer}}
ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {
    ag.input_layout = [#ag.segment<"x", [4], f32, offset = 8>],
    ag.output_layout = []} {
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// expected-error @+1 {{'ag.forward' op segment "x" has dimension -2 in its shape; expected sizes >= 0}}
ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {
    ag.input_layout = [#ag.segment<"x", [-2], f32, offset = 0>],
    ag.output_layout = []} {
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.return' op returns 0 values, but the entry declares 1 outputs}}
  ag.return
}

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<3xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.return' op output #0 has type 'tensor<2xf32>', but the entry declares 'tensor<3xf32>'}}
  ag.return %x : tensor<2xf32>
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<2xf32> {ag.name = "y"}) -> () {
  // expected-error @+1 {{'ag.add' op cannot broadcast shapes [2, 3] and [2]}}
  %0 = ag.add %x, %y : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<3xf32> {ag.name = "y"}) -> () {
  // expected-error @+1 {{'ag.mul' op result shape [3] does not match the broadcast shape [2, 3]}}
  %0 = ag.mul %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %u = ag.eager "k" () : () -> tensor<?x3xf32>
  // expected-error @+1 {{'ag.sub' op expects static shapes, but operand #1 has shape [?, 3]}}
  %0 = ag.sub %x, %u : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.div' op expects static shapes, but result #0 has shape [2, ?]}}
  %0 = ag.div %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x?xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.exp' op requires the same type for all operands and results}}
  %0 = "ag.exp"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  ag.return
}

// -----

ag.forward @f() -> () {
  // expected-error @+1 {{'ag.upload' op expects static shapes, but result #0 has shape [?]}}
  %u = ag.upload : tensor<?xf32>
  ag.return
}

// -----

ag.forward @f() -> () {
  %u = ag.eager "k" () : () -> tensor<?xf32>
  // expected-error @+1 {{'ag.tanh' op expects static shapes, but operand #0 has shape [?]}}
  %0 = ag.tanh %u : tensor<?xf32>
  ag.return
}

// -----

ag.forward @f() -> () {
  %u = ag.eager "k" () : () -> tensor<?xf32>
  // expected-error @+1 {{'ag.stop_gradient' op expects static shapes, but operand #0 has shape [?]}}
  %0 = ag.stop_gradient %u : tensor<?xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.stop_gradient' op requires the same type for all operands and results}}
  %0 = "ag.stop_gradient"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.matmul' op contraction sizes differ: lhs [2, 3] gives K = 3, rhs [2, 3] gives K = 2}}
  %0 = ag.matmul %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.matmul' op contraction sizes differ: lhs [2, 3] (transposed) gives K = 2, rhs [2, 3] (transposed) gives K = 3}}
  %0 = ag.matmul %x, %x {transpose_a, transpose_b} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.matmul' op result shape [3, 3] does not match the expected [2, 2]}}
  %0 = ag.matmul %x, %x {transpose_b} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<6xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.matmul' op expects 2-D operands and result, but found [6] x [6] -> [1, 1]}}
  %0 = ag.matmul %x, %x : (tensor<6xf32>, tensor<6xf32>) -> tensor<1x1xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.sum' op axis 2 is out of range for an input of rank 2 (expected -2 <= axis < 2)}}
  %0 = ag.sum %x axis = 2 : tensor<2x3xf32> -> tensor<2xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.mean' op result shape [3] does not match the expected [2]}}
  %0 = ag.mean %x axis = -1 : tensor<2x3xf32> -> tensor<3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.sum' op result shape [] does not match the expected [1, 1]}}
  %0 = ag.sum %x keepdim : tensor<2x3xf32> -> tensor<f32>
  ag.return
}

// -----

ag.forward @f() -> () {
  // expected-error @+1 {{'ag.read_weight' op refers to @missing, which is not an ag.weight of this module}}
  %0 = ag.read_weight @missing : tensor<2xf32>
  ag.return
}

// -----

ag.weight @w : tensor<4xf32>
ag.forward @f() -> () {
  // expected-error @+1 {{'ag.read_weight' op reads @w as 'tensor<2x2xf32>', but it is declared 'tensor<4xf32>'}}
  %0 = ag.read_weight @w : tensor<2x2xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.probe' op needs a non-empty probe name}}
  %0 = ag.probe "" %x : tensor<2xf32>
  ag.return
}

// -----

ag.forward @f() -> () {
  // expected-error @+1 {{'ag.upload' op marked constant must carry its value}}
  %0 = ag.upload constant : tensor<2xf32>
  ag.return
}

// -----

ag.forward @f() -> () {
  // expected-error @+1 {{'ag.upload' op value has type 'tensor<3xf32>' but the result is 'tensor<2xf32>'}}
  %0 = "ag.upload"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<2xf32>
  ag.return
}

// -----

ag.forward @f() -> () {
  // expected-error @+1 {{expected a dense elements initial value, found "one" : tensor<f32>}}
  %0 = ag.upload constant : tensor<f32> = "one"
  ag.return
}

// -----

ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  // expected-error @+1 {{'ag.input_view' op view of 16 bytes at offset 4 does not fit the 16-byte buffer}}
  %x = ag.input_view %in[4] : tensor<16xi8> -> tensor<4xf32>
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  %x = ag.input_view %in[0] : tensor<16xi8> -> tensor<4xf32>
  // expected-error @+1 {{'ag.pack_outputs' op output #0 (16 bytes at offset 4) does not fit the 16-byte buffer}}
  %o = ag.pack_outputs %x[4] : tensor<4xf32> -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// Offsets that no longer match their outputs (a shape changed after
// ag-pack-io): two outputs would be written over each other.
ag.forward @f(%in: tensor<16xi8>) -> tensor<288xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  %x = ag.input_view %in[0] : tensor<16xi8> -> tensor<4xf32>
  %y = ag.constant dense<1.0> : tensor<8xf32>
  // expected-error @+1 {{'ag.pack_outputs' op output #1 (32 bytes at offset 0) overlaps output #0 (16 bytes at offset 8): each output needs its own bytes of the buffer}}
  %o = ag.pack_outputs %x[8], %y[0] : tensor<4xf32>, tensor<8xf32> -> tensor<288xi8>
  ag.return %o : tensor<288xi8>
}

// -----

ag.forward @f(%in: tensor<16xi8>) -> tensor<288xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  %x = ag.input_view %in[0] : tensor<16xi8> -> tensor<4xf32>
  // expected-error @+1 {{'ag.pack_outputs' op output #2 (16 bytes at offset 256) overlaps output #1 (16 bytes at offset 256): each output needs its own bytes of the buffer}}
  %o = ag.pack_outputs %x[0], %x[256], %x[256] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<288xi8>
  ag.return %o : tensor<288xi8>
}

// -----

ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  %x = ag.input_view %in[0] : tensor<16xi8> -> tensor<4xf32>
  // expected-error @+1 {{'ag.pack_outputs' op has 1 outputs but 2 offsets}}
  %o = "ag.pack_outputs"(%x) <{offsets = array<i64: 0, 0>}> : (tensor<4xf32>) -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

ag.forward @f(%i: tensor<2x2xi32> {ag.name = "i"}) -> (tensor<2xi32> {ag.name = "s"}) {
  // expected-error @+1 {{'ag.check_indices' op expects indices [N], a status [2] and a poison [], but found [2, 2], [2] and []}}
  %s, %p = ag.check_indices %i {bound = 3 : i64, op = "ag.get_rows"} : tensor<2x2xi32> -> (tensor<2xi32>, tensor<f32>)
  ag.return %s : tensor<2xi32>
}

// -----

ag.forward @f(%i: tensor<4xi32> {ag.name = "i"}) -> (tensor<2xi32> {ag.name = "s"}) {
  // expected-error @+1 {{'ag.check_indices' op expects a bound >= 0, got -1}}
  %s, %p = ag.check_indices %i {bound = -1 : i64, op = "ag.get_rows"} : tensor<4xi32> -> (tensor<2xi32>, tensor<f32>)
  ag.return %s : tensor<2xi32>
}

// -----

ag.forward @f(%i: tensor<4xi32> {ag.name = "i"}) -> (tensor<2xi32> {ag.name = "s"}) {
  // expected-error @+1 {{'ag.check_indices' op expects the name of the indexing op in 'op'}}
  %s, %p = ag.check_indices %i {bound = 3 : i64, op = ""} : tensor<4xi32> -> (tensor<2xi32>, tensor<f32>)
  ag.return %s : tensor<2xi32>
}

// -----

// expected-error @+1 {{'ag.forward' op attribute 'ag.index_checks' must be an array of #ag.index_check, got [{bound = 3 : i64, op = "ag.get_rows"}]}}
ag.forward @f(%i: tensor<4xi32> {ag.name = "i"}) -> (tensor<4xi32> {ag.name = "s"}) attributes {ag.index_checks = [{bound = 3 : i64, op = "ag.get_rows"}]} {
  ag.return %i : tensor<4xi32>
}
