// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod
// RUN: %python %S/../Inputs/write_npy.py %t/x.npy f32 4,3 0.5,-1,2,0.25,1,1,-0.5,0.75,-2,0.5,1.5,-1
// RUN: %python %S/../Inputs/write_npy.py %t/good.npy i32 4 0,4,2,1
// RUN: %python %S/../Inputs/write_npy.py %t/bad.npy i32 4 0,4,5,-1
// RUN: not capture-run %t/m.capmod --entry train --steps 3 --keep-going --input x=%t/x.npy --input labels=%t/good.npy --input-at 2:labels=%t/bad.npy --dump-state %t/state | FileCheck %s
// RUN: cmp %t/state/step-1/fc.weight.npy %t/state/step-2/fc.weight.npy
// RUN: cmp %t/state/step-1/fc.bias.npy %t/state/step-2/fc.bias.npy
// RUN: cmp %t/state/step-1/adam.m.npy %t/state/step-2/adam.m.npy
// RUN: cmp %t/state/step-1/adam.v.npy %t/state/step-2/adam.v.npy
// RUN: cmp %t/state/step-1/t.txt %t/state/step-2/t.txt
// RUN: not cmp -s %t/state/step-2/fc.weight.npy %t/state/step-3/fc.weight.npy
// RUN: not capture-interp %s --entry train --input x=%t/x.npy --input labels=%t/bad.npy 2>&1 | FileCheck %s --check-prefix=INTERP

// A training step given a label outside [0, classes): the cross-entropy
// kernel clamps it, the device status names it, and the update is refused
// on the device (the status makes the gradient norm NaN, so AdamW writes
// nothing): step 2's weights, moments and t are bitwise step 1's, and
// step 3 trains on. Still one submission per step.

// CHECK: step 1: loss=
// CHECK: step 2: update not applied: entry 'train': ag.cross_entropy at {{.*}}index-check-train.mlir:[[#@LINE+15]]:8: input 'labels' has 5 at position 2, expected an index in [0, 5); the step was refused: weights, moments and the step counter (t = 1) are unchanged
// CHECK: step 3: loss=
// CHECK: command buffers recorded: 1
// INTERP: error: {{.*}}out of range

ag.weight @fc.weight trainable : tensor<5x3xf32> = #ag.init<linear, fan_in = 3, seed = 1>
ag.weight @fc.bias trainable : tensor<5xf32> = #ag.init<linear, fan_in = 3, seed = 2>

ag.train_step @train(%x: tensor<4x3xf32> {ag.name = "x"}, %labels: tensor<4xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>, max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @fc.weight : tensor<5x3xf32>
  %b = ag.read_weight @fc.bias : tensor<5xf32>
  %xw = ag.matmul %x, %w {transpose_b} : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
  %z = ag.add %xw, %b : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %l = ag.cross_entropy %z, %labels : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}
