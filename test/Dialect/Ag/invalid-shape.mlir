// RUN: capture-opt %s -split-input-file -verify-diagnostics

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<2xf32> {ag.name = "y"}) -> () {
  // expected-error @+1 {{'ag.minimum' op cannot broadcast shapes [2, 3] and [2]}}
  %0 = ag.minimum %x, %y : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.maximum' op result shape [3] does not match the broadcast shape [2, 3]}}
  %0 = ag.maximum %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.max' op axis -3 is out of range for an input of rank 2 (expected -2 <= axis < 2)}}
  %0 = ag.max %x axis = -3 : tensor<2x3xf32> -> tensor<3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.clamp' op min 1.200000e+00 is greater than max 8.000000e-01}}
  %0 = ag.clamp %x min = 1.2 max = 0.8 : tensor<2x3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.broadcast_to' op cannot broadcast [2, 3] to [3, 3]}}
  %0 = ag.broadcast_to %x : tensor<2x3xf32> -> tensor<3x3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.broadcast_to' op cannot broadcast [2, 3] to [3]}}
  %0 = ag.broadcast_to %x : tensor<2x3xf32> -> tensor<3xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.reshape' op cannot reshape [2, 3] (6 elements) to [7] (7 elements)}}
  %0 = ag.reshape %x : tensor<2x3xf32> -> tensor<7xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.transpose' op permutation [0, 0] is not a permutation of the 2 dimensions of the input}}
  %0 = ag.transpose %x permutation = [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.transpose' op permutation [1, 0, 2] is not a permutation of the 2 dimensions of the input}}
  %0 = ag.transpose %x permutation = [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.transpose' op result shape [2, 3] does not match the expected [3, 2]}}
  %0 = ag.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  ag.return
}

// -----

ag.forward @f() -> () {
  // expected-error @+1 {{'ag.concat' op needs at least one input}}
  %0 = "ag.concat"() <{axis = 0 : i64}> : () -> tensor<2xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<3x3xf32> {ag.name = "y"}) -> () {
  // expected-error @+1 {{'ag.concat' op input #1 has shape [3, 3], which differs from input #0's [2, 3] outside axis 1}}
  %0 = ag.concat %x, %y axis = 1 : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.concat' op result shape [2, 5] does not match the expected [2, 6]}}
  %0 = ag.concat %x, %x axis = -1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.concat' op axis 2 is out of range for an input of rank 2 (expected -2 <= axis < 2)}}
  %0 = ag.concat %x, %x axis = 2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.slice' op range [5, 9) is not a non-empty part of [0, 8) (axis 1)}}
  %0 = ag.slice %x axis = 1 start = 5 end = 9 : tensor<2x8xf32> -> tensor<2x4xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.slice' op range [3, 3) is not a non-empty part of [0, 8) (axis 1)}}
  %0 = ag.slice %x axis = -1 start = 3 end = 3 : tensor<2x8xf32> -> tensor<2x0xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.slice' op result shape [2, 4] does not match the expected [2, 3]}}
  %0 = ag.slice %x axis = 1 start = 2 end = 5 : tensor<2x8xf32> -> tensor<2x4xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.slice' op axis 4 is out of range for an input of rank 2}}
  %0 = ag.slice %x axis = 4 start = 0 end = 1 : tensor<2x8xf32> -> tensor<2x8xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.softmax' op axis 2 is out of range for an input of rank 2}}
  %0 = ag.softmax %x axis = 2 : tensor<2x8xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.log_softmax' op axis -3 is out of range for an input of rank 2}}
  %0 = ag.log_softmax %x axis = -3 : tensor<2x8xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}, %l: tensor<3xi32> {ag.name = "l"}) -> () {
  // expected-error @+1 {{'ag.cross_entropy' op expects logits [B, C] and labels [B], but found [2, 8] and [3]}}
  %0 = ag.cross_entropy %x, %l : (tensor<2x8xf32>, tensor<3xi32>) -> tensor<f32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}, %l: tensor<2xi32> {ag.name = "l"}) -> () {
  // expected-error @+1 {{'ag.cross_entropy' op returns a scalar (tensor<f32>), but the result has shape [2]}}
  %0 = ag.cross_entropy %x, %l : (tensor<2x8xf32>, tensor<2xi32>) -> tensor<2xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}, %l: tensor<2xf32> {ag.name = "l"}) -> () {
  // expected-error @+1 {{'ag.cross_entropy' op operand #1 must be ranked tensor of 32-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = ag.cross_entropy %x, %l : (tensor<2x8xf32>, tensor<2xf32>) -> tensor<f32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}, %y: tensor<8xf32> {ag.name = "y"}) -> () {
  // expected-error @+1 {{'ag.mse' op expects operands of one shape, but found [2, 8] and [8] (broadcast explicitly with ag.broadcast_to)}}
  %0 = ag.mse %x, %y : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<f32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.mse' op returns a scalar (tensor<f32>), but the result has shape [1]}}
  %0 = ag.mse %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<1xf32>
  ag.return
}

// -----

ag.forward @f(%t: tensor<10x4xf32> {ag.name = "t"}, %i: tensor<3x1xi32> {ag.name = "i"}) -> () {
  // expected-error @+1 {{'ag.get_rows' op expects a table [V, D] and indices [N], but found [10, 4] and [3, 1]}}
  %0 = ag.get_rows %t, %i : (tensor<10x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
  ag.return
}

// -----

ag.forward @f(%t: tensor<10x4xf32> {ag.name = "t"}, %i: tensor<3xi32> {ag.name = "i"}) -> () {
  // expected-error @+1 {{'ag.get_rows' op result shape [3, 10] does not match the expected [3, 4]}}
  %0 = ag.get_rows %t, %i : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x10xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<2xf32> {ag.name = "y"}) -> () {
  // expected-error @+1 {{'ag.compare' op cannot broadcast shapes [2, 3] and [2]}}
  %0 = ag.compare lt, %x, %y : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  ag.return
}

// -----

ag.forward @f(%l: tensor<2xi32> {ag.name = "l"}) -> () {
  // expected-error @+1 {{'ag.one_hot' op expects labels [B] and a result [B, C], but found [2] and [3, 4]}}
  %0 = ag.one_hot %l : tensor<2xi32> -> tensor<3x4xf32>
  ag.return
}

// -----

ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %l: tensor<2xi32> {ag.name = "l"}) -> () {
  // expected-error @+1 {{'ag.scatter_add_rows' op expects updates [N, D], indices [N] and a result [V, D], but found [2, 3], [2] and [5, 4]}}
  %0 = ag.scatter_add_rows %x, %l : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<5x4xf32>
  ag.return
}

// -----

// Sizes are counted without overflow and must fit one storage-buffer
// binding: refused in the verifier, never a crash or a runaway allocation
// in the compiler.
// expected-error @+1 {{'ag.forward' op has a tensor of type 'tensor<4294967296x4294967296xf32>': its byte count overflows 64 bits, more than one tensor may have (4294967295 bytes: it must fit one storage-buffer binding)}}
ag.forward @f(%x: tensor<4294967296x4294967296xf32> {ag.name = "x"}) -> (tensor<4294967296x4294967296xf32> {ag.name = "y"}) {
  %y = ag.exp %x : tensor<4294967296x4294967296xf32>
  ag.return %y : tensor<4294967296x4294967296xf32>
}

// -----

// expected-error @+1 {{'ag.weight' op has a tensor of type 'tensor<65536x65536xf32>': 17179869184 bytes, more than one tensor may have (4294967295 bytes: it must fit one storage-buffer binding)}}
ag.weight @w : tensor<65536x65536xf32> = dense<0.5>

// -----

ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'ag.broadcast_to' op has a tensor of type 'tensor<1073741824x2xf32>': 8589934592 bytes, more than one tensor may have (4294967295 bytes: it must fit one storage-buffer binding)}}
  %b = ag.broadcast_to %x : tensor<2xf32> -> tensor<1073741824x2xf32>
  %s = ag.sum %b axis = 0 : tensor<1073741824x2xf32> -> tensor<2xf32>
  ag.return %s : tensor<2xf32>
}
