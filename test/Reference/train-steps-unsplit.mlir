// capture-interp --steps splits a training step that has not been split
// (ag-autodiff, ag-pack-params, ag-insert-clip-scale, ag-split-update) and
// then runs it exactly like the step split by capture-opt.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Inputs/write_npy.py %t/x.npy f32 3,4 0.5,-1,2,0.25,1,1,-0.5,0.75,-2,0.5,1.5,-1
// RUN: %python %S/../Inputs/write_npy.py %t/y.npy f32 3,2 1,0,0,1,-1,0.5
// RUN: capture-opt %s --pass-pipeline="builtin.module(ag-autodiff,ag-pack-params,ag-insert-clip-scale,ag-split-update)" -o %t/split.mlir
// RUN: capture-interp %t/split.mlir --steps 3 --input x=%t/x.npy --input y=%t/y.npy --dump-state %t/split-state > %t/split.out
// RUN: capture-interp %s --steps 3 --input x=%t/x.npy --input y=%t/y.npy --dump-state %t/state | FileCheck %s
// RUN: capture-interp %s --steps 3 --input x=%t/x.npy --input y=%t/y.npy > %t/unsplit.out
// RUN: diff %t/split.out %t/unsplit.out
// RUN: cmp %t/split-state/step-3/w.npy %t/state/step-3/w.npy
// RUN: cmp %t/split-state/step-3/adam.v.npy %t/state/step-3/adam.v.npy
// CHECK:      step 1: loss={{[0-9.]+}} grad_norm={{[0-9.]+}}
// CHECK-NEXT: step 2: loss={{[0-9.]+}} grad_norm={{[0-9.]+}}
// CHECK-NEXT: step 3: loss={{[0-9.]+}} grad_norm={{[0-9.]+}}

// Without max_grad_norm the split step has no clip limit to set.
// RUN: not capture-interp %s --steps 2 --input x=%t/x.npy --input y=%t/y.npy --max-grad-norm-at 2=1 2>&1 | FileCheck %s --check-prefix=NO-CLIP
// NO-CLIP: capture-interp: error: --max-grad-norm-at: @train does not clip gradients (it has no max_grad_norm attribute), expected a training step that clips

ag.weight @w trainable : tensor<4x2xf32> = dense<[[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6], [0.7, -0.8]]>
ag.weight @b trainable : tensor<2xf32> = #ag.init<zeros>

ag.train_step @train(%x: tensor<3x4xf32> {ag.name = "x"}, %y: tensor<3x2xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %z = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %p = ag.tanh %z : tensor<3x2xf32>
  %l = ag.mse %p, %y : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}
