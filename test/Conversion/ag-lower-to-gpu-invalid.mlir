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

// A two-pass reduction (its kernel configuration says so) needs the place
// of its partials.
module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 0, optimizer = 0, constants = 0>} {
  ag.forward @big(%arg0: tensor<32768xi8>) -> tensor<16xi8> attributes {ag.input_layout = [#ag.segment<"x", [8192], f32, offset = 0>], ag.output_layout = [#ag.segment<"s", [], f32, offset = 0>], ag.scratch_bytes = 32 : i64} {
    %0 = ag.input_view %arg0[0] {ag.places = [#ag.place<input, 0>]} : tensor<32768xi8> -> tensor<8192xf32>
    // expected-error @+1 {{'ag.sum' op has no 'ag.partials' buffer plan: run ag-plan-buffers before ag-lower-to-gpu}}
    %1 = ag.sum %0 {ag.kernel_config = #ag.two_pass<chunk = 256, parts = 32>, ag.places = [#ag.place<output, 0>]} : tensor<8192xf32> -> tensor<f32>
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

// ag-autodiff erases every ag.stop_gradient: planned IR that still has one
// (with a place, even) is refused, not copied.
module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 0, optimizer = 0, constants = 0>} {
  ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = [], ag.scratch_bytes = 16 : i64} {
    %x = ag.input_view %in[0] {ag.places = [#ag.place<input, 0>]} : tensor<16xi8> -> tensor<4xf32>
    // expected-error @+1 {{'ag.stop_gradient' op has no GPU kernel}}
    %d = ag.stop_gradient %x {ag.places = [#ag.place<scratch, 0>]} : tensor<4xf32>
    %o = ag.pack_outputs : -> tensor<16xi8>
    ag.return %o : tensor<16xi8>
  }
}

// -----

// expected-error @+1 {{'ag.target' must be an #ag.target<...> attribute, got "lavapipe"}}
module attributes {ag.target = "lavapipe", ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 0, optimizer = 0, constants = 0>} {
}

// -----

// A planned forward entry whose results are not packed: nothing tells the
// lowering where its outputs go.
module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 0, optimizer = 0, constants = 0>} {
  ag.forward @f(%arg0: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [#ag.segment<"x", [4], f32, offset = 0>], ag.output_layout = [#ag.segment<"y", [4], f32, offset = 0>], ag.scratch_bytes = 0 : i64} {
    // expected-error @+1 {{'ag.return' op returns no ag.pack_outputs: run ag-pack-io and ag-plan-buffers before ag-lower-to-gpu}}
    ag.return %arg0 : tensor<16xi8>
  }
}

// -----

// Only a training step updates weights: a planned forward entry with an
// ag.apply_adamw (which the schedule of a forward has no place for) is
// refused, not lowered without it.
module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 16, optimizer = 528, constants = 0>} {
  ag.weight @w trainable : tensor<4xf32>  {ag.place = #ag.place<weights, 0>}
  ag.param_pack @p weights([@w]) offsets([0]) size(4) {ag.grads_place = #ag.place<optimizer, 0>, ag.moment1_place = #ag.place<optimizer, 256>, ag.moment2_place = #ag.place<optimizer, 512>, ag.place = #ag.place<weights, 0>}
  ag.forward @f(%arg0: tensor<544xi8>) -> tensor<16xi8> attributes {ag.input_layout = [#ag.segment<"g", [4], f32, offset = 0>, #ag.segment<"n", [], f32, offset = 256>, #ag.segment<"h", [7], f32, offset = 512>], ag.output_layout = [#ag.segment<"y", [4], f32, offset = 0>], ag.scratch_bytes = 16 : i64} {
    %0 = ag.input_view %arg0[0] {ag.places = [#ag.place<input, 0>]} : tensor<544xi8> -> tensor<4xf32>
    %1 = ag.input_view %arg0[256] {ag.places = [#ag.place<input, 256>]} : tensor<544xi8> -> tensor<f32>
    %2 = ag.input_view %arg0[512] {ag.places = [#ag.place<input, 512>]} : tensor<544xi8> -> tensor<7xf32>
    %3 = ag.read_weight @w {ag.places = [#ag.place<weights, 0>]} : tensor<4xf32>
    // expected-error @+1 {{'ag.apply_adamw' op in forward entry @f: only an ag.train_step updates weights}}
    ag.apply_adamw @p grads(%0) grad_norm(%1) hyper(%2) : tensor<4xf32>, tensor<f32>, tensor<7xf32>
    %4 = ag.pack_outputs %3[0] : tensor<4xf32> -> tensor<16xi8>
    ag.return %4 : tensor<16xi8>
  }
}

// -----

// A training step runs one update, after everything else: a second one is
// refused, not dropped.
module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 16, optimizer = 528, constants = 16>} {
  ag.weight @w trainable : tensor<2xf32> = dense<[1.000000e+00, 2.000000e+00]> {ag.place = #ag.place<weights, 0>}
  ag.param_pack @train.params weights([@w]) offsets([0]) size(2) {ag.grads_place = #ag.place<optimizer, 0>, ag.moment1_place = #ag.place<optimizer, 256>, ag.moment2_place = #ag.place<optimizer, 512>, ag.place = #ag.place<weights, 0>}
  ag.train_step @train(%arg0: tensor<288xi8>) -> tensor<272xi8> attributes {ag.input_layout = [#ag.segment<"x", [2], f32, offset = 0>, #ag.segment<"adamw", [7], f32, offset = 256>], ag.output_layout = [#ag.segment<"loss", [], f32, offset = 0>, #ag.segment<"grad_norm", [], f32, offset = 256>], ag.scratch_bytes = 272 : i64, optimizer = #ag.adamw<lr = 1.000000e-02, beta1 = 9.000000e-01, beta2 = 0.99899999999999999, eps = 1.000000e-08, weight_decay = 0.000000e+00>} {
    %0 = ag.input_view %arg0[0] {ag.places = [#ag.place<input, 0>]} : tensor<288xi8> -> tensor<2xf32>
    %1 = ag.input_view %arg0[256] {ag.places = [#ag.place<input, 256>]} : tensor<288xi8> -> tensor<7xf32>
    %2 = ag.constant {ag.places = [#ag.place<constants, 0>]} dense<1.000000e+00> : tensor<2xf32>
    %3 = ag.read_weight @w {ag.places = [#ag.place<weights, 0>]} : tensor<2xf32>
    %4 = ag.mul %0, %3 {ag.places = [#ag.place<scratch, 0>]} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %5 = ag.sum %4 {ag.places = [#ag.place<output, 0>]} : tensor<2xf32> -> tensor<f32>
    %6 = ag.mul %2, %0 {ag.places = [#ag.place<optimizer, 0>]} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %7 = ag.pack_grads @train.params(%6) {ag.places = [#ag.place<optimizer, 0>]} : (tensor<2xf32>) -> tensor<2xf32>
    %8 = ag.mul %7, %7 {ag.places = [#ag.place<scratch, 0>]} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %9 = ag.sum %8 {ag.places = [#ag.place<scratch, 256>]} : tensor<2xf32> -> tensor<f32>
    %10 = ag.sqrt %9 {ag.places = [#ag.place<output, 256>]} : tensor<f32>
    ag.apply_adamw @train.params grads(%7) grad_norm(%10) hyper(%1) : tensor<2xf32>, tensor<f32>, tensor<7xf32>
    // expected-error @+1 {{'ag.apply_adamw' op is a second update in @train: a training step applies one ag.apply_adamw}}
    ag.apply_adamw @train.params grads(%7) grad_norm(%10) hyper(%1) : tensor<2xf32>, tensor<f32>, tensor<7xf32>
    %11 = ag.pack_outputs %5[0], %10[256] : tensor<f32>, tensor<f32> -> tensor<272xi8>
    ag.return %11 : tensor<272xi8>
  }
}
