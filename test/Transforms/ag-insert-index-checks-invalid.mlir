// RUN: capture-opt %s -split-input-file -ag-insert-index-checks -verify-diagnostics

// expected-error @+1 {{'ag.forward' op has an output named "index_check.0"; names starting with "index_check." are for ag-insert-index-checks' statuses: rename it}}
ag.forward @f(%x: tensor<4x3xf32> {ag.name = "x"}, %labels: tensor<4xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "index_check.0"}) {
  %l = ag.cross_entropy %x, %labels : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}

// -----

ag.weight @w trainable : tensor<5x3xf32> = #ag.init<zeros>
// expected-error @+1 {{'ag.train_step' op has index operands but no gradient norm: run ag-insert-clip-scale before ag-insert-index-checks}}
ag.train_step @train(%x: tensor<4x3xf32> {ag.name = "x"}, %labels: tensor<4xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<5x3xf32>
  %z = ag.matmul %x, %w {transpose_b} : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
  %l = ag.cross_entropy %z, %labels : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}
