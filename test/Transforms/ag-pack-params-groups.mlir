// RUN: capture-opt %s -ag-autodiff -canonicalize -ag-pack-params=alignment=4 -ag-insert-clip-scale -ag-split-update | FileCheck %s

// Param groups: the pack records each weight's group, a weight that starts
// another group than the one before starts a vec4 of the update kernel
// (offset 16, not 15 as 4-byte alignment alone would give; @c, in @w's
// group 0 again, starts at 24 for the same reason, while @b2, following @b
// in group 1, packs at 21), and the update's hyperparameter input holds
// seven values per group.

ag.weight @w trainable : tensor<3x5xf32>
ag.weight @b trainable : tensor<5xf32>
ag.weight @b2 trainable : tensor<2xf32>
ag.weight @c trainable : tensor<5xf32>

// CHECK: ag.param_pack @step.params weights([@w, @b, @b2, @c]) offsets([0, 16, 21, 24]) size(29) groups([0, 1, 1, 0])
// CHECK-LABEL: ag.train_step @step
// CHECK-SAME: %{{.*}}: tensor<14xf32> {ag.hyper = "adamw", ag.name = "adamw"}
// CHECK: ag.apply_adamw @step.params grads(%{{.*}}) grad_norm(%{{.*}}) hyper(%{{.*}}) : tensor<29xf32>, tensor<f32>, tensor<14xf32>
ag.train_step @step(%x: tensor<2x3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                param_groups = [#ag.param_group<[@b2, @b], #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>>]} {
  %w = ag.read_weight @w : tensor<3x5xf32>
  %b = ag.read_weight @b : tensor<5xf32>
  %b2 = ag.read_weight @b2 : tensor<2xf32>
  %c = ag.read_weight @c : tensor<5xf32>
  %xw = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %h = ag.add %xw, %b : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %hc = ag.mul %h, %c : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %l1 = ag.sum %hc : tensor<2x5xf32> -> tensor<f32>
  %l2 = ag.sum %b2 : tensor<2xf32> -> tensor<f32>
  %l = ag.add %l1, %l2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}

