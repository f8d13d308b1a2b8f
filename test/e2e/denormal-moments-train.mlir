// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod
// RUN: %python %S/../Inputs/write_npy.py %t/ids.npy i32 2 0,2
// RUN: capture-run %t/m.capmod --entry train --steps 1 --input ids=%t/ids.npy --dump-state %t/first
// RUN: %python %S/Inputs/denormal_state.py make %t/first/step-1 %t/denormal
// RUN: capture-run %t/m.capmod --entry train --steps 1 --input ids=%t/ids.npy --load-state %t/denormal --dump-state %t/after
// RUN: %python %S/Inputs/denormal_state.py check %t/after | FileCheck %s

// A state whose AdamW moments are all denormal: after one step no moment
// is. The rows the batch selects (0 and 2) get gradients, so their moments
// are normal; every other row's decay below 2^-126 and are flushed to zero
// by the AdamW kernel (docs/architecture.md, "Training steps"), as the
// interpreter does. Without the flush they would stay denormal (0.9e-39).

// CHECK: adam.m.npy: 0 denormal, [[#]] zero, [[#]] normal
// CHECK: adam.v.npy: 0 denormal, [[#]] zero, [[#]] normal

ag.weight @table trainable : tensor<6x4xf32> = #ag.init<normal, mean = 0.0, std = 1.0, seed = 7>

ag.train_step @train(%ids: tensor<2xi32> {ag.name = "ids"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %t = ag.read_weight @table : tensor<6x4xf32>
  %e = ag.get_rows %t, %ids : (tensor<6x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  %s = ag.square %e : tensor<2x4xf32>
  %l = ag.mean %s : tensor<2x4xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
