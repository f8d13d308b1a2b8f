// RUN: capture-opt %s -split-input-file -ag-autodiff -canonicalize -ag-pack-params -ag-insert-clip-scale -ag-split-update | FileCheck %s

// The update becomes the step's last op: AdamW over the pack, from the
// clipped flat gradients, guarded by the pre-clip norm, with its 7 values
// from a new runtime input `adamw`. The gradients are no longer an output;
// the loss, the user's outputs and grad_norm are.

ag.weight @w trainable : tensor<3x5xf32>
ag.weight @b trainable : tensor<5xf32>

// CHECK: ag.param_pack @step.params weights([@w, @b]) offsets([0, 64]) size(69)
// CHECK-LABEL: ag.train_step @step
// CHECK-SAME: (%{{.*}}: tensor<2x3xf32> {ag.name = "x"}, %[[MAX:.*]]: tensor<f32> {ag.hyper = "max_grad_norm", ag.name = "max_grad_norm"}, %[[H:.*]]: tensor<7xf32> {ag.hyper = "adamw", ag.name = "adamw"})
// CHECK-SAME: -> (tensor<f32> {ag.name = "loss"}, tensor<2x5xf32> {ag.name = "pred"}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"})
// CHECK: %[[G:.*]] = ag.pack_grads @step.params
// CHECK: %[[N:.*]] = ag.sqrt
// CHECK: %[[C:.*]] = ag.mul %[[G]], %{{.*}} : (tensor<69xf32>, tensor<f32>) -> tensor<69xf32>
// CHECK-NEXT: ag.apply_adamw @step.params grads(%[[C]]) grad_norm(%[[N]]) hyper(%[[H]]) : tensor<69xf32>, tensor<f32>, tensor<7xf32>
// CHECK-NEXT: ag.return %{{.*}}, %{{.*}}, %[[N]] : tensor<f32>, tensor<2x5xf32>, tensor<f32>
ag.train_step @step(%x: tensor<2x3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"}, tensor<2x5xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>,
                max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @w : tensor<3x5xf32>
  %b = ag.read_weight @b : tensor<5xf32>
  %xw = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %h = ag.add %xw, %b : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %l = ag.mean %h : tensor<2x5xf32> -> tensor<f32>
  ag.return %l, %h : tensor<f32>, tensor<2x5xf32>
}

// -----

// Without clipping the update takes the unscaled gradients, and there is no
// max_grad_norm input.
ag.weight @v trainable : tensor<4xf32>
// CHECK-LABEL: ag.train_step @plain
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {ag.name = "x"}, %[[H:.*]]: tensor<7xf32> {ag.hyper = "adamw", ag.name = "adamw"})
// CHECK: %[[G:.*]] = ag.pack_grads @plain.params
// CHECK: %[[N:.*]] = ag.sqrt
// CHECK-NEXT: ag.apply_adamw @plain.params grads(%[[G]]) grad_norm(%[[N]]) hyper(%[[H]])
ag.train_step @plain(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %v = ag.read_weight @v : tensor<4xf32>
  %0 = ag.mul %v, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = ag.sum %0 : tensor<4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
