// RUN: capture-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{place offset must be >= 0, got -4}}
ag.weight @w : tensor<4xf32> {ag.place = #ag.place<weights, -4>}

// -----

// expected-error @+2 {{expected one of [input, output, weights, constants, scratch, optimizer] for a buffer of a lowered module, got: scratchpad}}
// expected-error @+1 {{failed to parse Ag_PlaceAttr parameter 'buffer'}}
ag.weight @w : tensor<4xf32> {ag.place = #ag.place<scratchpad, 0>}

// -----

// expected-error @+1 {{buffer plan alignment must be a power of two >= 16, got 48}}
module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 48, weights = 0, optimizer = 0, constants = 0>} {
}

// -----

// expected-error @+1 {{buffer plan optimizer must be >= 0 bytes, got -16}}
module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 64, weights = 0, optimizer = -16, constants = 0>} {
}

// -----

// expected-error @+1 {{'ag.weight' op attribute 'ag.buffer_plan' must be an #ag.buffer_plan on a builtin.module, got #ag.buffer_plan<alignment = 64, weights = 0, optimizer = 0, constants = 0>}}
ag.weight @w : tensor<4xf32> {ag.buffer_plan = #ag.buffer_plan<alignment = 64, weights = 0, optimizer = 0, constants = 0>}

// -----

// expected-error @+1 {{'ag.weight' op attribute 'ag.place' must be an #ag.place, got 0 : i64}}
ag.weight @w : tensor<4xf32> {ag.place = 0 : i64}

// -----

ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  // expected-error @+1 {{'ag.input_view' op attribute 'ag.places' must have one #ag.place per result (1), got 2}}
  %x = ag.input_view %in[0] {ag.places = [#ag.place<input, 0>, #ag.place<input, 16>]} : tensor<16xi8> -> tensor<4xf32>
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  // expected-error @+1 {{'ag.input_view' op attribute 'ag.places' must be a list of #ag.place, got [0]}}
  %x = ag.input_view %in[0] {ag.places = [0]} : tensor<16xi8> -> tensor<4xf32>
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  %x = ag.input_view %in[0] : tensor<16xi8> -> tensor<4xf32>
  // expected-error @+1 {{'ag.sum' op attribute 'ag.partials' must be an #ag.place in scratch, got #ag.place<output, 0>}}
  %s = ag.sum %x {ag.partials = #ag.place<output, 0>} : tensor<4xf32> -> tensor<f32>
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  // expected-error @+1 {{'ag.input_view' op attribute 'ag.stages' must be a list of #ag.place, got #ag.place<scratch, 0>}}
  %x = ag.input_view %in[0] {ag.stages = #ag.place<scratch, 0>} : tensor<16xi8> -> tensor<4xf32>
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// expected-error @+1 {{'ag.forward' op attribute 'ag.scratch_bytes' must be a non-negative i64 byte count, got -1 : i64}}
ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = [], ag.scratch_bytes = -1 : i64} {
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}
