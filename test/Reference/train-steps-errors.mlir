// Usage errors of capture-interp --steps name what was expected and what
// was found, and exit 1. Most use the split step of train-steps.mlir.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Inputs/write_npy.py %t/x.npy f32 3,4 0,0,0,0,0,0,0,0,0,0,0,0
// RUN: %python %S/../Inputs/write_npy.py %t/h.npy f32 7 0,0,0,0,0,0,0

// The runtime's inputs are filled by the tool, never given.
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --input adamw=%t/h.npy 2>&1 | FileCheck %s --check-prefix=ADAMW
// ADAMW: capture-interp: error: --input gives input 'adamw', which capture-interp fills as the runtime does (ag.hyper = "adamw": the AdamW hyperparameters and the bias corrections of the step counter); expected only the step's other inputs (set it with --lr-at instead)
// RUN: not capture-interp %S/train-steps.mlir --entry train --input x=%t/x.npy --input adamw=%t/h.npy 2>&1 | FileCheck %s --check-prefix=ADAMW
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --input max_grad_norm=%t/h.npy 2>&1 | FileCheck %s --check-prefix=MGN
// MGN: capture-interp: error: --input gives input 'max_grad_norm', which capture-interp fills as the runtime does (ag.hyper = "max_grad_norm": the gradient clipping limit); expected only the step's other inputs (set it with --max-grad-norm-at instead)
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --input-at 2:adamw=%t/h.npy 2>&1 | FileCheck %s --check-prefix=ADAMW-AT
// ADAMW-AT: capture-interp: error: --input-at gives input 'adamw', which capture-interp fills

// Bad --lr-at values.
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --lr-at 2=-0.5 2>&1 | FileCheck %s --check-prefix=LR-NEG
// LR-NEG: capture-interp: error: --lr-at 2=-0.5: the learning rate must be a finite number >= 0, got '-0.5'
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --lr-at 1=fast 2>&1 | FileCheck %s --check-prefix=LR-WORD
// LR-WORD: capture-interp: error: --lr-at 1=fast: the learning rate must be a finite number >= 0, got 'fast'
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --lr-at 1=nan 2>&1 | FileCheck %s --check-prefix=LR-NAN
// LR-NAN: capture-interp: error: --lr-at 1=nan: the learning rate must be a finite number >= 0, got 'nan'
// A value that overflows the float the runtime stores.
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --lr-at 1=1e39 2>&1 | FileCheck %s --check-prefix=LR-BIG
// LR-BIG: capture-interp: error: --lr-at 1=1e39: the learning rate must be a finite number >= 0, got '1e39'
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --lr-at 3=0.1 2>&1 | FileCheck %s --check-prefix=LR-LATE
// LR-LATE: capture-interp: error: --lr-at 3=0.1: the step must be a number from 1 to 2 (--steps), got '3'
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --lr-at 0=0.1 2>&1 | FileCheck %s --check-prefix=LR-ZERO
// LR-ZERO: capture-interp: error: --lr-at 0=0.1: the step must be a number from 1 to 2 (--steps), got '0'
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --lr-at 0.1 2>&1 | FileCheck %s --check-prefix=LR-SYNTAX
// LR-SYNTAX: capture-interp: error: --lr-at expects K=VALUE (K: a step from 1 to 2), got '0.1'
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --lr-at 1=0.1 --lr-at 1=0.2 2>&1 | FileCheck %s --check-prefix=LR-TWICE
// LR-TWICE: capture-interp: error: --lr-at gives step 1 twice
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --max-grad-norm-at 2=0 2>&1 | FileCheck %s --check-prefix=MGN-ZERO
// MGN-ZERO: capture-interp: error: --max-grad-norm-at 2=0: the clip limit must be a finite number > 0, got '0'

// --input-at names a step and an input of the step.
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --input-at 1:y=%t/x.npy 2>&1 | FileCheck %s --check-prefix=AT-NAME
// AT-NAME: capture-interp: error: --input-at 1:y={{.*}}x.npy: @train has no input 'y'; its inputs are 'x'
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 2 --input x=%t/x.npy --input-at x=%t/x.npy 2>&1 | FileCheck %s --check-prefix=AT-SYNTAX
// AT-SYNTAX: capture-interp: error: --input-at expects K:NAME=FILE.npy (K: a step from 1 to 2), got 'x={{.*}}x.npy'

// The training options need --steps, and --steps a training step.
// RUN: not capture-interp %S/train-steps.mlir --entry train --input x=%t/x.npy --lr-at 1=0.1 2>&1 | FileCheck %s --check-prefix=NO-STEPS
// NO-STEPS: capture-interp: error: --lr-at, --max-grad-norm-at, --input-at, --keep-going, --save-params and --dump-state only apply to training; add --steps N
// RUN: not capture-interp %S/train-steps.mlir --entry train --input x=%t/x.npy --steps 0 2>&1 | FileCheck %s --check-prefix=ZERO-STEPS
// ZERO-STEPS: capture-interp: error: --steps expects a number of steps >= 1, got 0
// RUN: not capture-interp %S/train-steps.mlir --entry predict --input x=%t/x.npy --steps 1 2>&1 | FileCheck %s --check-prefix=FORWARD
// FORWARD: capture-interp: error: --steps trains an ag.train_step, but @predict is an ag.forward
// RUN: not capture-interp %S/train-steps.mlir --entry train --steps 1 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: missing input 'x' (shape [3, 4]) of entry @train

// @step below does not clip, and the module has two packs, so --dump-state
// cannot name one adam.m.npy. Its steps themselves run: with a constant
// gradient, bias-corrected AdamW moves each weight by lr (0.1) per step, so
// the loss falls by 0.2 per step (up to float rounding).
// RUN: capture-interp %s --steps 3 | FileCheck %s --check-prefix=RUNS
// RUNS:      step 1: loss=3 grad_norm=1.41421354
// RUNS-NEXT: step 2: loss=2.79999995 grad_norm=1.41421354
// RUNS-NEXT: step 3: loss=2.5999999 grad_norm=1.41421354
// RUN: not capture-interp %s --steps 2 --max-grad-norm-at 1=1 2>&1 | FileCheck %s --check-prefix=NO-CLIP
// NO-CLIP: capture-interp: error: --max-grad-norm-at: @step does not clip gradients (it has no max_grad_norm attribute), expected a training step that clips
// RUN: not capture-interp %s --steps 2 --dump-state %t/dump 2>&1 | FileCheck %s --check-prefix=TWO-PACKS
// TWO-PACKS: capture-interp: error: --dump-state writes the moments of one ag.param_pack as adam.m.npy and adam.v.npy, but the module has 2 (@step.params, @other.params)

ag.weight @a trainable : tensor<2xf32> = dense<[1.0, 2.0]>
ag.weight @c trainable : tensor<2xf32>
ag.param_pack @step.params weights([@a]) offsets([0]) size(2)
ag.param_pack @other.params weights([@c]) offsets([0]) size(2)

// loss = sum(a), whose gradient is [1, 1].
ag.train_step @step(%h: tensor<7xf32> {ag.hyper = "adamw", ag.name = "adamw"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-1, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %a = ag.read_weight @a : tensor<2xf32>
  %loss = ag.sum %a : tensor<2xf32> -> tensor<f32>
  %one = ag.constant dense<1.0> : tensor<2xf32>
  %g = ag.pack_grads @step.params(%one) : (tensor<2xf32>) -> tensor<2xf32>
  %gg = ag.mul %g, %g : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %ss = ag.sum %gg : tensor<2xf32> -> tensor<f32>
  %n = ag.sqrt %ss : tensor<f32>
  ag.apply_adamw @step.params grads(%g) grad_norm(%n) hyper(%h) : tensor<2xf32>, tensor<f32>, tensor<7xf32>
  ag.return %loss, %n : tensor<f32>, tensor<f32>
}
