// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod
// RUN: %python %S/../Inputs/write_npy.py %t/x.npy f32 4,3 0.5,-1,2,0.25,1,1,-0.5,0.75,-2,0.5,1.5,-1
// RUN: %python %S/../Inputs/write_npy.py %t/y.npy f32 4,3 1,0,-1,2,0.5,1,-1,1,0,0.5,-0.5,2
// RUN: capture-run %t/m.capmod --entry train --steps 3 --input x=%t/x.npy --input y=%t/y.npy --save-params %t/dev | FileCheck %s
// RUN: capture-interp %s --entry train --steps 3 --input x=%t/x.npy --input y=%t/y.npy --save-params %t/ref | FileCheck %s
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/dev/w.npy | FileCheck %s --check-prefix=W
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/ref/w.npy | FileCheck %s --check-prefix=W
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/dev/u.npy | FileCheck %s --check-prefix=U
// RUN: %python %S/../Reference/Inputs/print_npy.py %t/ref/u.npy | FileCheck %s --check-prefix=U
// RUN: capture-run %t/m.capmod --entry predict --params-dir %t/dev --input x=%t/x.npy --output-dir %t/gpu
// RUN: capture-interp %s --entry predict --param w=%t/ref/w.npy --param u=%t/ref/u.npy --input x=%t/x.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s --check-prefix=CMP

// End to end: a training step whose prediction is 2 w x + u, written as
// w x + stop_gradient(w) x + stop_gradient(u) (PyTorch's detach()), trained
// for 3 steps by AdamW on the device (capture-aot + capture-run) and in the
// reference interpreter, against a hand computation in double precision:
// with t = 2 w x + u, loss = mean((t - y)^2) and grad_w = sum over the
// batch of 2 (t - y) x / 12 (the direct term only; through the
// stop_gradient it would be twice that, grad_norm 14.4555863 at step 1).
// @u reaches the loss only through a stop_gradient: it gets no gradient and
// stays exactly as initialized. The forward entry, which detaches too,
// gives the device's trained weights' prediction as the interpreter's does.

// CHECK: step 1: loss=19.567{{[0-9]*}} grad_norm=7.227{{[0-9]*}}
// CHECK-NEXT: step 2: loss=17.992{{[0-9]*}} grad_norm=6.8773{{[0-9]*}}
// CHECK-NEXT: step 3: loss=16.524{{[0-9]*}} grad_norm=6.5298{{[0-9]*}}

// W: [3] 0.69885{{[0-9]*}} -0.70370{{[0-9]*}} 1.7005{{[0-9]*}}{{$}}
// U: [3] 1 2 3{{$}}
// CMP: compare y: {{.*}}: ok

ag.weight @w trainable : tensor<3xf32> = dense<[0.5, -1.0, 2.0]>
ag.weight @u trainable : tensor<3xf32> = dense<[1.0, 2.0, 3.0]>

ag.train_step @train(%x: tensor<4x3xf32> {ag.name = "x"}, %y: tensor<4x3xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<4x3xf32> {ag.name = "pred"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-1, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3xf32>
  %u = ag.read_weight @u : tensor<3xf32>
  %ws = ag.stop_gradient %w : tensor<3xf32>
  %us = ag.stop_gradient %u : tensor<3xf32>
  %a = ag.mul %x, %w : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %b = ag.mul %x, %ws : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %s = ag.add %a, %b : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %t = ag.add %s, %us : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %l = ag.mse %t, %y : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>
  ag.return %l, %t : tensor<f32>, tensor<4x3xf32>
}

ag.forward @predict(%x: tensor<4x3xf32> {ag.name = "x"}) -> (tensor<4x3xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<3xf32>
  %u = ag.read_weight @u : tensor<3xf32>
  %ws = ag.stop_gradient %w : tensor<3xf32>
  %a = ag.mul %x, %ws : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %t = ag.add %a, %u : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  ag.return %t : tensor<4x3xf32>
}
