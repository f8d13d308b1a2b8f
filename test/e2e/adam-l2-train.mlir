// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Inputs/write_npy.py %t/x.npy f32 3,4 0.5,-1,2,0.25,1,1,-0.5,0.75,-2,0.5,1.5,-1
// RUN: %python %S/../Inputs/write_npy.py %t/y.npy f32 3,2 1,0,0,1,-1,0.5
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=MOD
// RUN: capture-run %t/m.capmod --entry train --steps 4 --input x=%t/x.npy --input y=%t/y.npy --save-params %t/dev | FileCheck %s
// RUN: capture-interp %s --entry train --steps 4 --input x=%t/x.npy --input y=%t/y.npy --save-params %t/ref | FileCheck %s
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/dev/w.npy | FileCheck %s --check-prefix=W
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/ref/w.npy | FileCheck %s --check-prefix=W
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/dev/b.npy | FileCheck %s --check-prefix=B
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/ref/b.npy | FileCheck %s --check-prefix=B
// RUN: capture-run %t/m.capmod --entry predict --params-dir %t/dev --input x=%t/x.npy --output-dir %t/dev-out
// RUN: capture-interp %s --entry predict --param w=%t/ref/w.npy --param b=%t/ref/b.npy --input x=%t/x.npy --compare %t/dev-out --tolerance 1e-5 | FileCheck %s --check-prefix=CMP

// End to end: the training step of test/Reference/train-steps-adam-l2.mlir,
// torch.optim.Adam(weight_decay=0.1) (`decoupled = false`: the L2 term
// 0.1 * p added to the clipped gradient, no decay of p) with
// clip_grad_norm_(1.0), trained for 4 steps on the device (capture-aot +
// capture-run) and in the reference interpreter. Both give the same losses,
// norms and weights, which are double-precision torch.optim.Adam's to 6
// digits (torch.optim.AdamW's differ from step 2 on: loss 10.3173715,
// w[0] -0.0348872903).

// The module keeps the mode, and the update kernel is Adam's.
// MOD-LABEL: entry train:
// MOD-NEXT: train: adamw lr=5.000000e-02 beta1=9.000000e-01 beta2=9.990000e-01 eps=1.000000e-08 weight_decay=1.000000e-01 decoupled=false, max_grad_norm=1.000000e+00
// MOD: dispatch adam_add_div_minimum_mul_{{[0-9]+}} groups [1, 1, 1]

// CHECK: step 1: loss=12.5912{{[0-9]*}} grad_norm=18.6001{{[0-9]*}}
// CHECK-NEXT: step 2: loss=10.4043{{[0-9]*}} grad_norm=16.7248{{[0-9]*}}
// CHECK-NEXT: step 3: loss=8.50436{{[0-9]*}} grad_norm=14.9240{{[0-9]*}}
// CHECK-NEXT: step 4: loss=6.87284{{[0-9]*}} grad_norm=13.2231{{[0-9]*}}

// W: [4, 2] -0.039849{{[0-9]*}} -0.099962{{[0-9]*}} 0.099719{{[0-9]*}} 0.596896{{[0-9]*}} -0.300359{{[0-9]*}} 0.400369{{[0-9]*}} 0.506732{{[0-9]*}} -0.600050{{[0-9]*}}{{$}}
// B: [2] 0.301039{{[0-9]*}} -0.051924{{[0-9]*}}{{$}}
// CMP: compare y: {{.*}}: ok

ag.weight @w trainable : tensor<4x2xf32> = dense<[[0.1, -0.3], [0.3, 0.4], [-0.5, 0.6], [0.7, -0.8]]>
ag.weight @b trainable : tensor<2xf32> = dense<[0.5, -0.25]>

ag.train_step @train(%x: tensor<3x4xf32> {ag.name = "x"}, %y: tensor<3x2xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 5.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1, decoupled = false>, max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %z = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %d = ag.sub %z, %y : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %dd = ag.mul %d, %d : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %l = ag.sum %dd : tensor<3x2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}

ag.forward @predict(%x: tensor<3x4xf32> {ag.name = "x"}) -> (tensor<3x2xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %z = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  ag.return %z : tensor<3x2xf32>
}
