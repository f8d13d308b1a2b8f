// RUN: capture-opt %s -split-input-file -verify-diagnostics -ag-verify-capture

// A trace that uploaded host data twice at one site (one source line), once
// at another, read a value back and launched an op eagerly twice: ONE error
// names every site with its count.

// expected-error @+1 {{capture guard: entry @step did work outside the graph while tracing, which a replay would not repeat: 3 uploads of host data, 1 download, 2 eager launches at 4 sites}}
ag.forward @step(%x: tensor<2x4xf32> {ag.name = "x"}) -> (tensor<2x4xf32> {ag.name = "y"}) {
  // expected-note @+1 {{upload of host data here, 2 times}}
  %m1 = ag.upload : tensor<2x4xf32>   %m2 = ag.upload : tensor<2x4xf32>
  // expected-note @+1 {{upload of host data here, 1 time}}
  %m3 = ag.upload : tensor<2x4xf32>
  // A data-independent constant is allowed.
  %seed = ag.upload constant : tensor<f32> = dense<1.0>
  %0 = ag.mul %x, %m1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // expected-note @+1 {{download (read-back) of a device value here, 1 time}}
  ag.download %0 : tensor<2x4xf32>
  // expected-note @+1 {{eager launch of 'relu' here, 2 times}}
  %e1 = ag.eager "relu" (%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>   %e2 = ag.eager "relu" (%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  ag.return %e2 : tensor<2x4xf32>
}

// -----

// Every offending entry gets its own diagnostic; clean entries pass.
ag.weight @w : tensor<2xf32>
ag.forward @clean(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<2xf32>
  %one = ag.upload constant : tensor<2xf32> = dense<1.0>
  %0 = ag.add %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = ag.add %0, %one : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  ag.return %1 : tensor<2xf32>
}
// expected-error @+1 {{entry @first did work outside the graph while tracing, which a replay would not repeat: 1 download at 1 site}}
ag.forward @first(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  // expected-note @+1 {{download (read-back) of a device value here, 1 time}}
  ag.download %x : tensor<2xf32>
  ag.return
}
// An upload that recorded its (data-dependent) value is still rejected.
// expected-error @+1 {{entry @second did work outside the graph while tracing, which a replay would not repeat: 1 upload of host data at 1 site}}
ag.forward @second() -> () {
  // expected-note @+1 {{upload of host data here, 1 time}}
  %u = ag.upload : tensor<2xf32> = dense<3.0>
  ag.return
}

// -----

// Training steps are guarded too.
// expected-error @+1 {{capture guard: entry @train did work outside the graph while tracing, which a replay would not repeat: 1 download at 1 site}}
ag.train_step @train(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %l = ag.sum %x : tensor<2xf32> -> tensor<f32>
  // expected-note @+1 {{download (read-back) of a device value here, 1 time}}
  ag.download %l : tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

// Weights and entries of a nested module would be left out of the compiled
// module: the guard names each one.
module {
  module @inner {
    // expected-error @+1 {{'ag.weight' op is in a nested builtin.module @inner: Capture compiles only the top-level module's weights and entries; move it to the top level}}
    ag.weight @w : tensor<2xf32>
    // expected-error @+1 {{'ag.forward' op is in a nested builtin.module @inner: Capture compiles only the top-level module's weights and entries; move it to the top level}}
    ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
      ag.return %x : tensor<2xf32>
    }
  }
  module {
    // expected-error @+1 {{'ag.forward' op is in a nested builtin.module: Capture compiles only the top-level module's weights and entries; move it to the top level}}
    ag.forward @g(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
      ag.return %x : tensor<2xf32>
    }
  }
}

// -----

// A call would hide the callee's host interaction from the guard: calls in
// entries are errors, with the callee's offending sites as notes.
func.func @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-note @+1 {{the callee's download (read-back) of a device value here}}
  ag.download %x : tensor<2xf32>
  return %x : tensor<2xf32>
}
ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  // expected-error @+1 {{'func.call' op is a call of @helper in entry @f: an entry is compiled as one trace, without calls; write (or trace) the callee's ops into the entry}}
  %y = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  ag.return %y : tensor<2xf32>
}

// -----

// Ops only the compiler's passes make are refused in a trace, at the top
// level and in an entry: the pipeline would meet them as its own (an update
// in a forward entry once crashed the lowering; found by the compiler's
// fuzzer). Every one is named, once.
ag.weight @w trainable : tensor<4xf32>
// expected-error @+1 {{'ag.param_pack' op is made by the compiler's passes, not written in a trace: the pipeline takes the traced computation (ag.weight, ag.forward, ag.train_step with its loss) and adds the training, layout and dispatch ops itself; remove it, or run single passes with capture-opt}}
ag.param_pack @p weights([@w]) offsets([0]) size(4)
ag.forward @f(%g: tensor<4xf32> {ag.name = "g"}, %n: tensor<f32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %a = ag.read_weight @w : tensor<4xf32>
  // expected-error @+1 {{'ag.apply_adamw' op is made by the compiler's passes}}
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<4xf32>, tensor<f32>, tensor<7xf32>
  // expected-error @+1 {{'ag.dispatch_region' op is made by the compiler's passes}}
  %b = ag.dispatch_region elementwise ins(%a : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = ag.exp %x : tensor<4xf32>
    ag.yield %e : tensor<4xf32>
  }
  ag.return %b : tensor<4xf32>
}

// -----

// A module without an entry would compile to a file with nothing to replay:
// the guard names what it found instead.
// expected-error @+1 {{the module has no entry: expected at least one top-level ag.forward or ag.train_step, found 2 ag.weight}}
module {
  ag.weight @a trainable : tensor<2x3xf32> = dense<0.25>
  ag.weight @b : tensor<3xf32>
}

// -----

// expected-error @+1 {{the module has no entry: expected at least one top-level ag.forward or ag.train_step, found an empty module}}
module {
}
