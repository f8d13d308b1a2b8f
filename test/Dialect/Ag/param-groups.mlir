// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s

// A training step's param groups and a pack's groups round-trip.

ag.weight @w trainable : tensor<4x2xf32>
ag.weight @b trainable : tensor<2xf32>

// CHECK-LABEL: ag.train_step @train
// CHECK-SAME: param_groups = [#ag.param_group<[@b], #ag.adamw<lr = 2.000000e-01, beta1 = 8.000000e-01, beta2 = 0.98999999999999999, eps = 9.9999999999999995E-7, weight_decay = 0.000000e+00>>]
ag.train_step @train(%x: tensor<8x4xf32> {ag.name = "x"}, %y: tensor<8x2xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 3.0e-4, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>,
                param_groups = [#ag.param_group<[@b], #ag.adamw<lr = 0.2, beta1 = 0.8, beta2 = 0.99, eps = 1.0e-6, weight_decay = 0.0>>]} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %p = ag.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %q = ag.add %p, %b : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  %l = ag.mse %q, %y : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}

// CHECK: ag.param_pack @p weights([@w, @b]) offsets([0, 8]) size(10) groups([0, 1])
ag.param_pack @p weights([@w, @b]) offsets([0, 8]) size(10) groups([0, 1])
// CHECK: ag.param_pack @q weights([@w, @b]) offsets([0, 8]) size(10){{$}}
ag.param_pack @q weights([@w, @b]) offsets([0, 8]) size(10)
