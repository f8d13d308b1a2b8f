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
// A learning rate is a param group's: group 1's lr 0 from step 1 leaves b
// as it was and trains w alone, on the device and in the interpreter.
// RUN: capture-run %t/m.capmod --entry train --steps 4 --input x=%t/x.npy --input y=%t/y.npy --lr-at 1=0@1 --save-params %t/dev1
// RUN: capture-interp %s --entry train --steps 4 --input x=%t/x.npy --input y=%t/y.npy --lr-at 1=0@1 --save-params %t/ref1
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/dev1/b.npy | FileCheck %s --check-prefix=B1
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/ref1/b.npy | FileCheck %s --check-prefix=B1
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/dev1/w.npy | FileCheck %s --check-prefix=W1
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/ref1/w.npy | FileCheck %s --check-prefix=W1
// Without the group, one value for both would undo their difference.
// RUN: not capture-run %t/m.capmod --entry train --steps 2 --input x=%t/x.npy --input y=%t/y.npy --lr-at 2=0.1 2>&1 | FileCheck %s --check-prefix=RUN-NO-GROUP
// RUN: not capture-interp %s --entry train --steps 2 --input x=%t/x.npy --input y=%t/y.npy --lr-at 2=0.1 2>&1 | FileCheck %s --check-prefix=INTERP-NO-GROUP
// RUN: not capture-run %t/m.capmod --entry train --steps 2 --input x=%t/x.npy --input y=%t/y.npy --lr-at 2=0.1@2 2>&1 | FileCheck %s --check-prefix=RUN-BAD-GROUP
// RUN: not capture-interp %s --entry train --steps 2 --input x=%t/x.npy --input y=%t/y.npy --lr-at 2=0.1@2 2>&1 | FileCheck %s --check-prefix=INTERP-BAD-GROUP

// End to end: the model of adam-l2-train.mlir under torch.optim.AdamW with
// two param groups, [{'params': [w]}, {'params': [b], 'lr': 0.2, 'betas':
// (0.8, 0.99), 'eps': 1e-6, 'weight_decay': 0.0}] (lr 0.05, weight decay
// 0.1 for the first), with clip_grad_norm_(1.0) over both, trained for 4
// steps on the device and in the reference interpreter: the same losses,
// norms and weights, which are double-precision PyTorch's to 6 digits
// (with one group, b would be 0.301 after 4 steps and the loss at step 2
// 10.404).

// The module keeps both groups; the hyperparameter input holds 14 values.
// MOD-LABEL: entry train:
// MOD-NEXT: train: adamw lr=5.000000e-02 beta1=9.000000e-01 beta2=9.990000e-01 eps=1.000000e-08 weight_decay=1.000000e-01, group 1 lr=2.000000e-01 beta1=8.000000e-01 beta2=9.900000e-01 eps=1.000000e-06 weight_decay=0.000000e+00, max_grad_norm=1.000000e+00

// CHECK: step 1: loss=12.5912{{[0-9]*}} grad_norm=18.6001{{[0-9]*}}
// CHECK-NEXT: step 2: loss=10.3878{{[0-9]*}} grad_norm=17.4712{{[0-9]*}}
// CHECK-NEXT: step 3: loss=8.37441{{[0-9]*}} grad_norm=14.6663{{[0-9]*}}
// CHECK-NEXT: step 4: loss=6.76546{{[0-9]*}} grad_norm=12.6930{{[0-9]*}}

// W: [4, 2] -0.034297{{[0-9]*}} -0.095416{{[0-9]*}} 0.095201{{[0-9]*}} 0.589590{{[0-9]*}} -0.292096{{[0-9]*}} 0.390125{{[0-9]*}} 0.505064{{[0-9]*}} -0.585525{{[0-9]*}}{{$}}
// B: [2] 0.32607{{[0-9]*}} -0.06840{{[0-9]*}}{{$}}
// B1: [2] 0.5 -0.25{{$}}
// W1: [4, 2] -0.026621{{[0-9]*}} -0.095330{{[0-9]*}} 0.095012{{[0-9]*}} 0.590318{{[0-9]*}} -0.292467{{[0-9]*}} 0.3905{{[0-9]*}} 0.503722{{[0-9]*}} -0.585374{{[0-9]*}}{{$}}
// RUN-NO-GROUP: capture-run: error: option --lr-at '2=0.1': entry 'train' has 2 param groups, each with its own learning rate; expected the group: --lr-at 2=0.1@G with G in 0..1
// INTERP-NO-GROUP: capture-interp: error: --lr-at 2=0.1: the step has 2 param groups, each with its own learning rate; expected the group: 2=0.1@G with G from 0 to 1
// RUN-BAD-GROUP: capture-run: error: option --lr-at '2=0.1@2': entry 'train' has 2 param groups, expected G in 0..1
// INTERP-BAD-GROUP: capture-interp: error: --lr-at 2=0.1@2: the group must be a number from 0 to 1 (the step's param groups), got '2'

ag.weight @w trainable : tensor<4x2xf32> = dense<[[0.1, -0.3], [0.3, 0.4], [-0.5, 0.6], [0.7, -0.8]]>
ag.weight @b trainable : tensor<2xf32> = dense<[0.5, -0.25]>

ag.train_step @train(%x: tensor<3x4xf32> {ag.name = "x"}, %y: tensor<3x2xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 5.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1>,
                param_groups = [#ag.param_group<[@b], #ag.adamw<lr = 0.2, beta1 = 0.8, beta2 = 0.99, eps = 1.0e-6, weight_decay = 0.0>>],
                max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %z = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %d = ag.sub %z, %y : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %dd = ag.mul %d, %d : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %l = ag.sum %dd : tensor<3x2xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
