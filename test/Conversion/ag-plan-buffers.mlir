// RUN: capture-opt %s -split-input-file -ag-autodiff -canonicalize -ag-pack-params -ag-insert-clip-scale -ag-split-update -canonicalize -cse -ag-pack-io -ag-configure-kernels -ag-plan-buffers | FileCheck %s
// RUN: capture-opt %s -split-input-file -ag-autodiff -ag-pack-params=alignment=64 -ag-insert-clip-scale -ag-split-update -ag-pack-io=alignment=64 -ag-configure-kernels -ag-plan-buffers=alignment=64 | FileCheck %s --check-prefix=A64

// Every tensor's place is an #ag.place attribute: inputs in the packed
// input buffer, weights at their ag.place, equal constants once, outputs
// computed by the entry in place in the output buffer, and intermediates
// in scratch, first fit, a range reused once its value is dead (a probed
// value's never is).

ag.weight @w trainable : tensor<4x8xf32>
ag.weight @b : tensor<8xf32> = dense<0.5>
ag.forward @mlp(%x: tensor<2x4xf32> {ag.name = "x"})
    -> (tensor<2x8xf32> {ag.name = "y"}, tensor<2x4xf32> {ag.name = "xin"}) {
  %w = ag.read_weight @w : tensor<4x8xf32>
  %b = ag.read_weight @b : tensor<8xf32>
  %c = ag.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %0 = ag.matmul %x, %w : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  %1 = ag.add %0, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %2 = ag.mul %1, %c : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %h = ag.probe "pre" %2 : tensor<2x8xf32>
  %3 = ag.tanh %h : tensor<2x8xf32>
  %c2 = ag.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %4 = ag.mul %3, %c2 : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %5 = ag.relu %4 : tensor<2x8xf32>
  ag.return %5, %x : tensor<2x8xf32>, tensor<2x4xf32>
}

// CHECK: module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 288, optimizer = 0, constants = 32>}
// CHECK: ag.weight @w {{.*}} {ag.place = #ag.place<weights, 0>}
// CHECK: ag.weight @b {{.*}} {ag.place = #ag.place<weights, 256>}
// CHECK-LABEL: ag.forward @mlp
// CHECK-SAME: ag.scratch_bytes = 576 : i64
// CHECK: %[[X:.*]] = ag.input_view %{{.*}}[0] {ag.places = [#ag.place<input, 0>]}
// CHECK: ag.constant {ag.places = [#ag.place<constants, 0>]}
// CHECK: ag.read_weight @w {ag.places = [#ag.place<weights, 0>]}
// CHECK: ag.read_weight @b {ag.places = [#ag.place<weights, 256>]}
// CHECK: ag.matmul {{.*}} {ag.places = [#ag.place<scratch, 0>]}
// CHECK: ag.add {{.*}} {ag.places = [#ag.place<scratch, 256>]}
// The matmul's range is free again after the add.
// CHECK: %[[PRE:.*]] = ag.mul {{.*}} {ag.places = [#ag.place<scratch, 0>]}
// CHECK: ag.probe "pre" %[[PRE]]
// CHECK: ag.tanh {{.*}} {ag.places = [#ag.place<scratch, 256>]}
// The probed value stays live and the tanh is read by the mul: a new range.
// CHECK: ag.mul {{.*}} {ag.places = [#ag.place<scratch, 512>]}
// CHECK: ag.relu {{.*}} {ag.places = [#ag.place<output, 0>]}
// An input returned as an output has no place in the output buffer: the
// lowering copies it.
// CHECK: ag.pack_outputs %{{.*}}[0], %[[X]][256]

// Without -cse both constants are there, stored once.
// A64: #ag.buffer_plan<alignment = 64, weights = 160, optimizer = 0, constants = 32>
// A64: ag.weight @b {{.*}} {ag.place = #ag.place<weights, 128>}
// A64-LABEL: ag.forward @mlp
// A64: ag.constant {ag.places = [#ag.place<constants, 0>]}
// A64: ag.add {{.*}} {ag.places = [#ag.place<scratch, 64>]}
// A64: ag.constant {ag.places = [#ag.place<constants, 0>]}

// -----

// A training step: the pack's weights lead the weights buffer as its flat
// array, the frozen weight follows; the optimizer buffer holds the flat
// gradients and both moments; gradients are computed in place in the flat
// gradients (the pack's own place), the norm in place in its output.

ag.weight @emb trainable : tensor<5x3xf32> = dense<0.5>
ag.weight @w trainable : tensor<3x4xf32> = dense<0.25>
ag.weight @scale : tensor<4xf32> = dense<[1.0, 2.0, 0.5, 1.5]>
ag.train_step @train(%ids: tensor<2xi32> {ag.name = "ids"}, %labels: tensor<2xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>, max_grad_norm = 0.5 : f32} {
  %e = ag.read_weight @emb : tensor<5x3xf32>
  %w = ag.read_weight @w : tensor<3x4xf32>
  %s = ag.read_weight @scale : tensor<4xf32>
  %x = ag.get_rows %e, %ids : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %h = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %z = ag.mul %h, %s : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %l = ag.cross_entropy %z, %labels : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}

// CHECK: #ag.buffer_plan<alignment = 256, weights = 528, optimizer = 1328, constants = 528>
// CHECK: ag.weight @emb {{.*}} {ag.place = #ag.place<weights, 0>}
// CHECK: ag.weight @w {{.*}} {ag.place = #ag.place<weights, 256>}
// CHECK: ag.weight @scale {{.*}} {ag.place = #ag.place<weights, 512>}
// CHECK: ag.param_pack @train.params weights([@emb, @w]) offsets([0, 64]) size(76) {ag.grads_place = #ag.place<optimizer, 0>, ag.moment1_place = #ag.place<optimizer, 512>, ag.moment2_place = #ag.place<optimizer, 1024>, ag.place = #ag.place<weights, 0>}
// CHECK-LABEL: ag.train_step @train
// CHECK: %[[GW:.*]] = ag.matmul {{.*}} {ag.places = [#ag.place<optimizer, 256>], transpose_a}
// CHECK: %[[GE:.*]] = ag.scatter_add_rows {{.*}} {ag.places = [#ag.place<optimizer, 0>]}
// CHECK: ag.pack_grads @train.params(%[[GE]], %[[GW]]) {ag.places = [#ag.place<optimizer, 0>]}
// CHECK: ag.sqrt {{.*}} {ag.places = [#ag.place<output, 256>]}
// CHECK: ag.apply_adamw
// CHECK-NOT: ag.places

// -----

// Two steps train different weights (SAC's critics and actor, each read
// by the other step through ag.stop_gradient): each pack sits where its
// first weight is declared, not all packs first, so that the next case, a
// module with the second step alone, lays the weights out alike and the
// two modules can share one Weights buffer.

ag.weight @frozen : tensor<4xf32> = dense<1.0>
ag.weight @a trainable : tensor<4xf32> = dense<0.5>
ag.weight @b trainable : tensor<4xf32> = dense<0.25>
ag.train_step @first(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %f = ag.read_weight @frozen : tensor<4xf32>
  %a = ag.read_weight @a : tensor<4xf32>
  %b = ag.read_weight @b : tensor<4xf32>
  %bs = ag.stop_gradient %b : tensor<4xf32>
  %0 = ag.mul %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = ag.mul %0, %bs : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = ag.mul %1, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = ag.sum %2 : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
ag.train_step @second(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %a = ag.read_weight @a : tensor<4xf32>
  %as = ag.stop_gradient %a : tensor<4xf32>
  %b = ag.read_weight @b : tensor<4xf32>
  %0 = ag.mul %b, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = ag.mul %0, %as : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = ag.sum %1 : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// CHECK: ag.weight @frozen {{.*}} {ag.place = #ag.place<weights, 0>}
// CHECK: ag.weight @a {{.*}} {ag.place = #ag.place<weights, 256>}
// CHECK: ag.weight @b {{.*}} {ag.place = #ag.place<weights, 512>}
// CHECK: ag.param_pack @first.params weights([@a]) {{.*}} ag.place = #ag.place<weights, 256>}
// CHECK: ag.param_pack @second.params weights([@b]) {{.*}} ag.place = #ag.place<weights, 512>}

// -----

ag.weight @frozen : tensor<4xf32> = dense<1.0>
ag.weight @a trainable : tensor<4xf32> = dense<0.5>
ag.weight @b trainable : tensor<4xf32> = dense<0.25>
ag.train_step @second(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %a = ag.read_weight @a : tensor<4xf32>
  %as = ag.stop_gradient %a : tensor<4xf32>
  %b = ag.read_weight @b : tensor<4xf32>
  %0 = ag.mul %b, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = ag.mul %0, %as : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = ag.sum %1 : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

// CHECK: ag.weight @frozen {{.*}} {ag.place = #ag.place<weights, 0>}
// CHECK: ag.weight @a {{.*}} {ag.place = #ag.place<weights, 256>}
// CHECK: ag.weight @b {{.*}} {ag.place = #ag.place<weights, 512>}
// CHECK: ag.param_pack @second.params weights([@b]) {{.*}} ag.place = #ag.place<weights, 512>}

// -----

// Scratch the kernel templates need besides the tensors, live during their
// op only: a two-pass reduction's partials (8192 elements: 32 partials of
// 256), a workgroup region's unyielded reductions. A reshape is its
// operand's bytes: no place of its own.

ag.forward @big(%x: tensor<8192xf32> {ag.name = "x"}, %z: tensor<8xf32> {ag.name = "z"}, %t: tensor<8xf32> {ag.name = "t"})
    -> (tensor<f32> {ag.name = "s"}, tensor<2x4xf32> {ag.name = "g"}) {
  %s = ag.sum %x : tensor<8192xf32> -> tensor<f32>
  %g = ag.workgroup_region ins(%z, %t : tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>) {
  ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
    %0 = ag.mse %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
    %1 = ag.sub %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %2 = ag.mul %1, %0 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    ag.yield %2 : tensor<8xf32>
  }
  %r = ag.reshape %g : tensor<8xf32> -> tensor<2x4xf32>
  %e = ag.exp %r : tensor<2x4xf32>
  ag.return %s, %e : tensor<f32>, tensor<2x4xf32>
}

// CHECK-LABEL: ag.forward @big
// CHECK: ag.sum {{.*}} {ag.kernel_config = #ag.two_pass<chunk = 256, parts = 32>, ag.partials = #ag.place<scratch, 0>, ag.places = [#ag.place<output, 0>]}
// CHECK: %[[G:.*]] = ag.workgroup_region {{.*}} attributes {ag.places = [#ag.place<scratch, 0>], ag.stages = [#ag.place<scratch, 256>]}
// CHECK: %[[R:.*]] = ag.reshape %[[G]] :
// CHECK: ag.exp %[[R]] {ag.places = [#ag.place<output, 256>]}
