// RUN: capture-opt %s -split-input-file -verify-diagnostics -ag-plan-buffers
// RUN: not capture-opt %s -split-input-file -ag-plan-buffers=alignment=24 2>&1 | FileCheck %s --check-prefix=ALIGN

// ALIGN: error: ag-plan-buffers: alignment must be a power of two >= 16, got 24

// expected-error @+1 {{'ag.forward' op must be packed first: run ag-pack-io before ag-plan-buffers}}
ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  ag.return
}

// -----

ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  %x = ag.input_view %in[0] : tensor<16xi8> -> tensor<4xf32>
  // expected-error @+1 {{'ag.download' op cannot be lowered: it is host interaction, which ag-verify-capture rejects (run it first)}}
  ag.download %x : tensor<4xf32>
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

ag.weight @a trainable : tensor<3xf32>
ag.weight @b trainable : tensor<3xf32>
// A pack laid out for another alignment: @b's element 3 is byte 12.
// expected-error @+1 {{'ag.param_pack' op places @b at element 3, which is not aligned to the 256-byte binding alignment: run ag-pack-params with the same alignment}}
ag.param_pack @p weights([@a, @b]) offsets([0, 3]) size(6)

// -----

// An op of another dialect in an entry: nothing can compute it.
ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  // expected-error @+1 {{'arith.constant' op has no GPU kernel}}
  %c = arith.constant 1.0 : f32
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// A read after the update would see the weight from before it: the
// compiled step runs its update last.
ag.weight @w trainable : tensor<4xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(4)
ag.forward @f(%in: tensor<288xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  %g = ag.input_view %in[0] : tensor<288xi8> -> tensor<4xf32>
  %n = ag.input_view %in[256] : tensor<288xi8> -> tensor<f32>
  %h = ag.input_view %in[256] : tensor<288xi8> -> tensor<7xf32>
  // expected-note @+1 {{the update}}
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<4xf32>, tensor<f32>, tensor<7xf32>
  // expected-error @+1 {{'ag.read_weight' op reads @w after the ag.apply_adamw that updates it: a compiled step runs its update last, so this read would see the weight from before the update; read it before the update, or in a forward entry}}
  %b = ag.read_weight @w : tensor<4xf32>
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// ag.stop_gradient is for ag-autodiff, which erases every one: nothing
// computes one that survives (not even a copy).
ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  %x = ag.input_view %in[0] : tensor<16xi8> -> tensor<4xf32>
  // expected-error @+1 {{'ag.stop_gradient' op has no GPU kernel}}
  %d = ag.stop_gradient %x : tensor<4xf32>
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// A packed entry that returns something other than its ag.pack_outputs
// (here its input buffer) used to crash the pass in
// PackOutputsOp::getOffsets.
ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  // expected-error @+1 {{'ag.return' op ends packed entry @f without returning an ag.pack_outputs: a packed entry returns the one output buffer ag-pack-io builds (run ag-pack-io after any pass that changes the outputs, then ag-plan-buffers)}}
  ag.return %in : tensor<16xi8>
}

// -----

// The pack's offsets must be the output layout's: the runtime reads each
// output from its segment.
ag.forward @f(%in: tensor<16xi8>) -> tensor<272xi8> attributes {ag.input_layout = [#ag.segment<"x", [4], f32, offset = 0>], ag.output_layout = [#ag.segment<"y", [4], f32, offset = 0>, #ag.segment<"z", [4], f32, offset = 256>]} {
  %x = ag.input_view %in[0] : tensor<16xi8> -> tensor<4xf32>
  %y = ag.exp %x : tensor<4xf32>
  %z = ag.tanh %x : tensor<4xf32>
  // expected-error @+1 {{'ag.pack_outputs' op output #1 is 'tensor<4xf32>' at offset 16, but segment #1 of the entry's ag.output_layout is #ag.segment<"z", [4], f32, offset = 256>: run ag-pack-io again}}
  %o = ag.pack_outputs %y[0], %z[16] : tensor<4xf32>, tensor<4xf32> -> tensor<272xi8>
  ag.return %o : tensor<272xi8>
}

// -----

// An output whose shape changed after ag-pack-io.
ag.forward @f(%in: tensor<16xi8>) -> tensor<272xi8> attributes {ag.input_layout = [#ag.segment<"x", [4], f32, offset = 0>], ag.output_layout = [#ag.segment<"y", [2], f32, offset = 0>]} {
  %x = ag.input_view %in[0] : tensor<16xi8> -> tensor<4xf32>
  %y = ag.exp %x : tensor<4xf32>
  // expected-error @+1 {{'ag.pack_outputs' op output #0 is 'tensor<4xf32>' at offset 0, but segment #0 of the entry's ag.output_layout is #ag.segment<"y", [2], f32, offset = 0>: run ag-pack-io again}}
  %o = ag.pack_outputs %y[0] : tensor<4xf32> -> tensor<272xi8>
  ag.return %o : tensor<272xi8>
}

// -----

ag.forward @f(%in: tensor<16xi8>) -> tensor<272xi8> attributes {ag.input_layout = [#ag.segment<"x", [4], f32, offset = 0>], ag.output_layout = [#ag.segment<"y", [4], f32, offset = 0>]} {
  %x = ag.input_view %in[0] : tensor<16xi8> -> tensor<4xf32>
  %y = ag.exp %x : tensor<4xf32>
  // expected-error @+1 {{'ag.pack_outputs' op packs 2 outputs, but the entry's ag.output_layout has 1 segments: run ag-pack-io again}}
  %o = ag.pack_outputs %y[0], %x[256] : tensor<4xf32>, tensor<4xf32> -> tensor<272xi8>
  ag.return %o : tensor<272xi8>
}
