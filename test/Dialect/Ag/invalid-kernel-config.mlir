// RUN: capture-opt %s -split-input-file -verify-diagnostics

// A kernel configuration is a typed record that fits its op: a
// #ag.two_pass on a full reduction, whose parts cover its elements
// exactly, with a chunk of whole vec4s.

ag.forward @f(%x: tensor<8192xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "s"}) {
  // expected-error @+1 {{'ag.sum' op attribute 'ag.kernel_config' must be a kernel configuration (#ag.two_pass), got 32 : i64}}
  %s = ag.sum %x {ag.kernel_config = 32} : tensor<8192xf32> -> tensor<f32>
  ag.return %s : tensor<f32>
}

// -----

ag.forward @f(%x: tensor<8x1024xf32> {ag.name = "x"}) -> (tensor<1024xf32> {ag.name = "s"}) {
  // expected-error @+1 {{'ag.sum' op has a #ag.two_pass kernel configuration, but is not a full reduction (ag.sum, ag.mean or ag.max without an axis, or a reduction region of one)}}
  %s = ag.sum %x axis = 0 {ag.kernel_config = #ag.two_pass<chunk = 256, parts = 4>} : tensor<8x1024xf32> -> tensor<1024xf32>
  ag.return %s : tensor<1024xf32>
}

// -----

ag.forward @f(%x: tensor<8192xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "s"}) {
  // expected-error @+1 {{'ag.sum' op has #ag.two_pass<chunk = 256, parts = 31>, which does not cover its 8192 elements exactly: expected parts = ceil(8192 / 256)}}
  %s = ag.sum %x {ag.kernel_config = #ag.two_pass<chunk = 256, parts = 31>} : tensor<8192xf32> -> tensor<f32>
  ag.return %s : tensor<f32>
}

// -----

ag.forward @f(%x: tensor<8192xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "s"}) {
  // expected-error @+1 {{'ag.sum' op has #ag.two_pass<chunk = 256, parts = 33>, which does not cover its 8192 elements exactly}}
  %s = ag.sum %x {ag.kernel_config = #ag.two_pass<chunk = 256, parts = 33>} : tensor<8192xf32> -> tensor<f32>
  ag.return %s : tensor<f32>
}

// -----

ag.forward @f(%x: tensor<8192xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "s"}) {
  // expected-error @+1 {{a two-pass reduction's chunk must be a positive multiple of 4, got 258}}
  %s = ag.sum %x {ag.kernel_config = #ag.two_pass<chunk = 258, parts = 32>} : tensor<8192xf32> -> tensor<f32>
  ag.return %s : tensor<f32>
}

// -----

ag.forward @f(%x: tensor<8192xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "s"}) {
  // expected-error @+1 {{a two-pass reduction has at least one part, got 0}}
  %s = ag.sum %x {ag.kernel_config = #ag.two_pass<chunk = 256, parts = 0>} : tensor<8192xf32> -> tensor<f32>
  ag.return %s : tensor<f32>
}

// -----

ag.forward @f(%x: tensor<8192xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "s"}) {
  // A huge chunk: one part (no overflow in the check).
  %s = ag.sum %x {ag.kernel_config = #ag.two_pass<chunk = 4611686018427387904, parts = 1>} : tensor<8192xf32> -> tensor<f32>
  // expected-error @+1 {{'ag.relu' op has a #ag.two_pass kernel configuration, but is not a full reduction}}
  %r = ag.relu %s {ag.kernel_config = #ag.two_pass<chunk = 4, parts = 1>} : tensor<f32>
  ag.return %r : tensor<f32>
}
