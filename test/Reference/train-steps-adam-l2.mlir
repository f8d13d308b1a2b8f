// capture-interp --steps with `decoupled = false`: torch.optim.Adam's
// weight decay, the L2 term weight_decay * p added to the clipped gradient
// before the moments, and no decay of p.
//
// The model is loss = sum((x @ w + b - y)^2) with max_grad_norm = 1, so
// every step is clipped. The f64 lines agree to all 9 digits with an
// independent double-precision torch.optim.Adam(weight_decay=0.1) +
// clip_grad_norm_ in Python (loss 12.5912504, 10.4043755, 8.50436343,
// 6.87284809); torch.optim.AdamW on the same data gives 10.3173715,
// 8.36138004, 6.69626372 from step 2 on, so the mode is what is checked. The
// f32 lines round every operation to float, like the device
// (test/e2e/adam-l2-train.mlir runs the same step there).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Inputs/write_npy.py %t/x.npy f32 3,4 0.5,-1,2,0.25,1,1,-0.5,0.75,-2,0.5,1.5,-1
// RUN: %python %S/../Inputs/write_npy.py %t/y.npy f32 3,2 1,0,0,1,-1,0.5
// RUN: capture-interp %s --entry train --steps 4 --input x=%t/x.npy --input y=%t/y.npy --precision f64 --save-params %t/saved --dump-state %t/dump | FileCheck %s --check-prefix=F64 --match-full-lines
// F64:      step 1: loss=12.5912504 grad_norm=18.6001348
// F64-NEXT: step 2: loss=10.4043755 grad_norm=16.7248977
// F64-NEXT: step 3: loss=8.50436343 grad_norm=14.9240265
// F64-NEXT: step 4: loss=6.87284809 grad_norm=13.2231802
// F64-NOT: {{.}}

// The weights and first moments after 4 steps are torch's, rounded to f32
// in the files. The moments' padding (elements 8 to 63 of the pack, between
// w and b) stays zero: its gradient is zero and so is its L2 term.
// RUN: %python %S/Inputs/print_npy.py %t/saved/w.npy | FileCheck %s --check-prefix=SAVED-W
// SAVED-W: [4, 2] -0.0398494154 -0.0999621302 0.0997194573 0.596896589 -0.300359547 0.400369048 0.506732881 -0.600050747
// RUN: %python %S/Inputs/print_npy.py %t/saved/b.npy | FileCheck %s --check-prefix=SAVED-B
// SAVED-B: [2] 0.301039636 -0.0519241542
// RUN: %python %S/Inputs/print_npy.py %t/dump/step-4/adam.m.npy 0 2 | FileCheck %s --check-prefix=M-W
// M-W: [66] 0.00428077718 -0.213066384
// RUN: %python %S/Inputs/print_npy.py %t/dump/step-4/adam.m.npy 64 66 | FileCheck %s --check-prefix=M-B
// M-B: [66] 0.0187153555 -0.0103220865
// RUN: %python %S/Inputs/print_npy.py %t/dump/step-4/adam.m.npy 8 64 | FileCheck %s --check-prefix=M-PADDING
// RUN: %python %S/Inputs/print_npy.py %t/dump/step-4/adam.v.npy 8 64 | FileCheck %s --check-prefix=M-PADDING
// M-PADDING: [66] 0{{( 0){55}$}}

// In f32, as the device computes it.
// RUN: capture-interp %s --entry train --steps 4 --input x=%t/x.npy --input y=%t/y.npy | FileCheck %s --check-prefix=F32 --match-full-lines
// F32:      step 1: loss=12.5912495 grad_norm=18.6001358
// F32-NEXT: step 2: loss=10.4043751 grad_norm=16.7248993
// F32-NEXT: step 3: loss=8.50436306 grad_norm=14.9240265
// F32-NEXT: step 4: loss=6.87284708 grad_norm=13.2231789
// F32-NOT: {{.}}

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
