// RUN: capture-aot %s -o %t.capmod --print-module | FileCheck %s

// A training step's module file: an optimizer buffer beside the weights,
// the entry's train record (the compiled AdamW values and clip limit, which
// inputs the runtime fills, where the norm is, the flat parameters in the
// weights buffer and both moments in the optimizer buffer), and the AdamW
// dispatch last, right after a barrier, writing exactly the parameters and
// the moments.

// CHECK: buffer [[W:[0-9]+]]: Weights, 528 bytes
// CHECK: buffer [[O:[0-9]+]]: Optimizer, 1296 bytes
// CHECK: weight w [4, 2] (f32) trainable @ [0, 32) initialized
// CHECK: weight b [2] (f32) trainable @ [256, 264) initialized
// CHECK: weight frozen [2] (f32) @ [512, 520) initialized
// CHECK-LABEL: entry train:
// CHECK-NEXT: train: adamw lr=1.000000e-02 beta1=9.000000e-01 beta2=9.990000e-01 eps=1.000000e-08 weight_decay=1.000000e-02, max_grad_norm=1.000000e+00 (input max_grad_norm), hyperparameters input adamw, grad norm output grad_norm
// CHECK-NEXT: params [[W]][0, 264), moments [[O]][512, 776) [[O]][1024, 1288)
// CHECK: input adamw [7] (f32) @ buffer [[IN:[0-9]+]] [768, 796)
// CHECK: output grad_norm [] (f32) @ buffer [[OUT:[0-9]+]] [512, 516)
// The norm (the sum of squares with its sqrt), a barrier, then AdamW, whose prologue computes the clipped
// gradients (the coefficient min(1, max / (norm + 1e-6)) recomputed per
// element from the norm, the limit and the flat gradients): they are never
// stored. Read-only f32 bindings are texel views (the lavapipe target):
// their ranges cover whole 16-byte texels. AdamW reads the parameters and
// moments and writes them as whole vec4s (66 floats: 17 vectors, the last
// one's padding stored back as read).
// CHECK: dispatch mul_sum_sqrt_
// CHECK-NEXT: barrier
// CHECK-NEXT: dispatch adamw_add_div_minimum_mul_{{[0-9]+}} groups [1, 1, 1] read {{.*}} read [[O]][0, 272) read [[OUT]][512, 528) read [[IN]][768, 800) read [[W]][0, 272) read [[O]][512, 784) read [[O]][1024, 1296) write [[W]][0, 272) write [[O]][512, 784) write [[O]][1024, 1296)
// CHECK-NOT: dispatch

ag.weight @w trainable : tensor<4x2xf32> = dense<[[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6], [0.7, -0.8]]>
ag.weight @b trainable : tensor<2xf32> = dense<[0.05, -0.05]>
ag.weight @frozen : tensor<2xf32> = dense<[1.0, 2.0]>
ag.train_step @train(%x: tensor<3x4xf32> {ag.name = "x"}, %y: tensor<3x2xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<3x2xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>, max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %f = ag.read_weight @frozen : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %h = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %p = ag.mul %h, %f : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %l = ag.mse %p, %y : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<f32>
  ag.return %l, %p : tensor<f32>, tensor<3x2xf32>
}
