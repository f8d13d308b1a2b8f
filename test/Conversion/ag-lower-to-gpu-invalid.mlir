// RUN: capture-opt %s -split-input-file -verify-diagnostics -ag-lower-to-gpu

// The lowering follows ag-plan-buffers' placement and refuses IR it did not
// plan, naming the missing attribute.

// expected-error @+1 {{'builtin.module' op has no 'ag.buffer_plan' buffer plan: run ag-plan-buffers before ag-lower-to-gpu}}
module {
  ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
    ag.return
  }
}

// -----

module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 0, optimizer = 0, constants = 0>} {
  // expected-error @+1 {{'ag.forward' op has no 'ag.scratch_bytes' buffer plan: run ag-plan-buffers before ag-lower-to-gpu}}
  ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
    ag.return
  }
}

// -----

module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 16, optimizer = 0, constants = 0>} {
  // expected-error @+1 {{'ag.weight' op has no 'ag.place' buffer plan: run ag-plan-buffers before ag-lower-to-gpu}}
  ag.weight @w : tensor<4xf32>
}

// -----

module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 0, optimizer = 0, constants = 0>} {
  ag.forward @big(%arg0: tensor<32768xi8>) -> tensor<16xi8> attributes {ag.input_layout = [#ag.segment<"x", [8192], f32, offset = 0>], ag.output_layout = [#ag.segment<"s", [], f32, offset = 0>], ag.scratch_bytes = 32 : i64} {
    // expected-error @+1 {{'ag.input_view' op has no 'ag.places' buffer plan: run ag-plan-buffers before ag-lower-to-gpu}}
    %0 = ag.input_view %arg0[0] : tensor<32768xi8> -> tensor<8192xf32>
    %1 = ag.sum %0 {ag.places = [#ag.place<output, 0>]} : tensor<8192xf32> -> tensor<f32>
    %2 = ag.pack_outputs %1[0] : tensor<f32> -> tensor<16xi8>
    ag.return %2 : tensor<16xi8>
  }
}

// -----

// A two-pass reduction needs the place of its partials.
module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 0, optimizer = 0, constants = 0>} {
  ag.forward @big(%arg0: tensor<32768xi8>) -> tensor<16xi8> attributes {ag.input_layout = [#ag.segment<"x", [8192], f32, offset = 0>], ag.output_layout = [#ag.segment<"s", [], f32, offset = 0>], ag.scratch_bytes = 32 : i64} {
    %0 = ag.input_view %arg0[0] {ag.places = [#ag.place<input, 0>]} : tensor<32768xi8> -> tensor<8192xf32>
    // expected-error @+1 {{'ag.sum' op has no 'ag.partials' buffer plan: run ag-plan-buffers before ag-lower-to-gpu}}
    %1 = ag.sum %0 {ag.places = [#ag.place<output, 0>]} : tensor<8192xf32> -> tensor<f32>
    %2 = ag.pack_outputs %1[0] : tensor<f32> -> tensor<16xi8>
    ag.return %2 : tensor<16xi8>
  }
}

// -----

// A workgroup region needs one place per reduction it does not yield.
module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 0, optimizer = 0, constants = 0>} {
  ag.forward @head(%arg0: tensor<288xi8>) -> tensor<32xi8> attributes {ag.input_layout = [#ag.segment<"z", [8], f32, offset = 0>, #ag.segment<"t", [8], f32, offset = 256>], ag.output_layout = [#ag.segment<"g", [8], f32, offset = 0>], ag.scratch_bytes = 16 : i64} {
    %0 = ag.input_view %arg0[0] {ag.places = [#ag.place<input, 0>]} : tensor<288xi8> -> tensor<8xf32>
    %1 = ag.input_view %arg0[256] {ag.places = [#ag.place<input, 256>]} : tensor<288xi8> -> tensor<8xf32>
    // expected-error @+1 {{'ag.workgroup_region' op has no 'ag.stages' buffer plan: run ag-plan-buffers before ag-lower-to-gpu (one #ag.place per unyielded reduction, 1)}}
    %2 = ag.workgroup_region ins(%0, %1 : tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>) attributes {ag.places = [#ag.place<output, 0>], ag.stages = []} {
    ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
      %4 = ag.mse %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
      %5 = ag.sub %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %6 = ag.mul %5, %4 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
      ag.yield %6 : tensor<8xf32>
    }
    %3 = ag.pack_outputs %2[0] : tensor<8xf32> -> tensor<32xi8>
    ag.return %3 : tensor<32xi8>
  }
}

// -----

module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 0, optimizer = 0, constants = 0>} {
  ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = [], ag.scratch_bytes = 16 : i64} {
    %x = ag.input_view %in[0] {ag.places = [#ag.place<input, 0>]} : tensor<16xi8> -> tensor<4xf32>
    // expected-error @+1 {{'ag.download' op cannot be lowered: it is host interaction, which ag-verify-capture rejects (run it first)}}
    ag.download %x : tensor<4xf32>
    %o = ag.pack_outputs : -> tensor<16xi8>
    ag.return %o : tensor<16xi8>
  }
}

// -----

// expected-error @+1 {{'ag.target' must be an #ag.target<...> attribute, got "lavapipe"}}
module attributes {ag.target = "lavapipe", ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 0, optimizer = 0, constants = 0>} {
}
