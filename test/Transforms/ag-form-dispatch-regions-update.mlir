// RUN: capture-opt %s -ag-autodiff -canonicalize -ag-pack-params -ag-insert-clip-scale -ag-split-update -canonicalize -cse -ag-form-dispatch-regions | FileCheck %s

// The clipped gradients feed only the update: their region is marked as
// the update kernel's prologue (computed inside AdamW, never stored). The
// squares of the norm form a reduction region, with the sqrt as its
// epilogue.

ag.weight @w trainable : tensor<3x5xf32>
ag.weight @b trainable : tensor<5xf32>

// CHECK-LABEL: ag.train_step @step
// CHECK: %[[G:.*]] = ag.pack_grads @step.params
// CHECK: %[[N:.*]] = ag.dispatch_region reduction ins(%[[G]] : tensor<69xf32>) -> tensor<f32> {
// CHECK: ag.mul
// CHECK: ag.sum
// CHECK: ag.sqrt
// CHECK: %[[C:.*]] = ag.dispatch_region elementwise ins({{.*}}) -> tensor<69xf32> attributes {ag.update_prologue} {
// CHECK: ag.minimum
// CHECK: ag.apply_adamw @step.params grads(%[[C]]) grad_norm(%[[N]])
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
