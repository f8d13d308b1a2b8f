// capture-interp --steps trains a split ag.train_step (the form
// ag-split-update produces) as the device runner does: AdamW with the
// moments, weights and step counter carried from step to step, the runtime's
// `adamw` and `max_grad_norm` inputs filled by the tool.
//
// The model is loss = sum((x @ lin.w + lin.b)^2) with max_grad_norm = 1, so
// every step is clipped. The f64 lines agree to all 9 digits with an
// independent double-precision torch.optim.AdamW + clip_grad_norm_ written
// in Python (loss 10.8162503, 10.2555189, 9.71119131, 9.18297109); the f32
// ones round every operation to float, like the device.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Inputs/write_npy.py %t/x.npy f32 3,4 0.5,-1,2,0.25,1,1,-0.5,0.75,-2,0.5,1.5,-1
// RUN: %python %S/../Inputs/write_npy.py %t/nan.npy f32 3,4 0.5,-1,2,0.25,1,nan,-0.5,0.75,-2,0.5,1.5,-1
// RUN: capture-interp %s --entry train --steps 4 --input x=%t/x.npy | FileCheck %s --check-prefix=F32 --match-full-lines
// F32:      step 1: loss=10.8162498 grad_norm=20.6905003
// F32-NEXT: step 2: loss=10.2555199 grad_norm=20.1198769
// F32-NEXT: step 3: loss=9.71119118 grad_norm=19.5509052
// F32-NEXT: step 4: loss=9.18297005 grad_norm=18.9854889
// F32-NOT: {{.}}
// RUN: capture-interp %s --entry train --steps 4 --input x=%t/x.npy --precision f64 | FileCheck %s --check-prefix=F64
// F64:      step 1: loss=10.8162503 grad_norm=20.6905024
// F64-NEXT: step 2: loss=10.2555189 grad_norm=20.1198768
// F64-NEXT: step 3: loss=9.71119131 grad_norm=19.5509066
// F64-NEXT: step 4: loss=9.18297109 grad_norm=18.9854887

// The state after the steps, in f64 (rounded to f32 in the files): the
// weights match the Python AdamW (0.0599704263 -0.159911478 ... for lin.w,
// 0.03995273 -0.0399904993 for lin.b); the moments' padding stays zero;
// t counts the applied updates. --output-dir holds the last step's outputs.
// RUN: capture-interp %s --entry train --steps 4 --input x=%t/x.npy --precision f64 --save-params %t/saved --dump-state %t/dump --output-dir %t/out
// RUN: %python %S/Inputs/print_npy.py %t/saved/lin.w.npy | FileCheck %s --check-prefix=SAVED-W
// SAVED-W: [4, 2] 0.0599704273 -0.159911484 0.25986895 0.426126719 -0.459813237 0.559775233 0.659727037 -0.75967288
// RUN: %python %S/Inputs/print_npy.py %t/saved/lin.b.npy | FileCheck %s --check-prefix=SAVED-B
// SAVED-B: [2] 0.0399527289 -0.0399904996
// RUN: %python %S/Inputs/print_npy.py %t/saved/frozen.npy | FileCheck %s --check-prefix=SAVED-FROZEN
// SAVED-FROZEN: [2] 1 -1
// RUN: cmp %t/saved/lin.w.npy %t/dump/step-4/lin.w.npy
// RUN: %python %S/Inputs/print_npy.py %t/dump/step-4/adam.m.npy 6 10 | FileCheck %s --check-prefix=M-EDGE
// M-EDGE: [66] 0.0701751262 -0.0906395465 0 0
// RUN: %python %S/Inputs/print_npy.py %t/dump/step-4/adam.v.npy 8 64 | FileCheck %s --check-prefix=V-PADDING
// V-PADDING: [66] 0{{( 0){55}$}}
// RUN: %python %S/Inputs/print_npy.py %t/dump/step-4/adam.v.npy 64 66 | FileCheck %s --check-prefix=V-B
// V-B: [66] 6.95915733e-05 0.000163836827
// RUN: FileCheck %s --check-prefix=T1 --input-file %t/dump/step-1/t.txt
// T1: {{^1$}}
// RUN: FileCheck %s --check-prefix=T4 --input-file %t/dump/step-4/t.txt
// T4: {{^4$}}
// RUN: %python %S/Inputs/print_npy.py %t/out/loss.npy | FileCheck %s --check-prefix=OUT
// OUT: [] 9.182971{{$}}

// A learning rate of 0 from step 2 on freezes the weights: steps 2 and 3
// see the same ones.
// RUN: capture-interp %s --entry train --steps 3 --input x=%t/x.npy --lr-at 2=0 | FileCheck %s --check-prefix=LR
// LR:      step 1: loss=10.8162498 grad_norm=20.6905003
// LR-NEXT: step 2: loss=[[LOSS:.*]] grad_norm=[[NORM:.*]]
// LR-NEXT: step 3: loss=[[LOSS]] grad_norm=[[NORM]]

// A larger clip limit from step 2 on: step 2's outputs come from before its
// update, so only step 3 changes (the Python AdamW gives 9.83100915).
// RUN: capture-interp %s --entry train --steps 3 --input x=%t/x.npy --max-grad-norm-at 2=100 | FileCheck %s --check-prefix=CLIP
// CLIP:      step 2: loss=10.2555199 grad_norm=20.1198769
// CLIP-NEXT: step 3: loss=9.83100891 grad_norm=19.6764755

// A NaN in step 2's input makes its gradient norm NaN: the update is
// refused and nothing changes, so step 3 repeats what step 2 would have
// been. --keep-going runs every step and exits 1 at the end.
// RUN: not capture-interp %s --entry train --steps 3 --input x=%t/x.npy --input-at 2:x=%t/nan.npy --keep-going --dump-state %t/kg > %t/kg.out 2> %t/kg.err
// RUN: FileCheck %s --check-prefix=KEEP --match-full-lines < %t/kg.out
// KEEP:      step 1: loss=10.8162498 grad_norm=20.6905003
// KEEP-NEXT: step 2: update not applied: grad_norm is nan; weights, moments and the step counter are unchanged
// KEEP-NEXT: step 3: loss=10.2555199 grad_norm=20.1198769
// RUN: FileCheck %s --check-prefix=KEEP-ERR < %t/kg.err
// KEEP-ERR: capture-interp: error: 1 of 3 steps were not applied (non-finite gradient norm): step 2
// RUN: cmp %t/kg/step-1/lin.w.npy %t/kg/step-2/lin.w.npy
// RUN: cmp %t/kg/step-1/lin.b.npy %t/kg/step-2/lin.b.npy
// RUN: cmp %t/kg/step-1/adam.m.npy %t/kg/step-2/adam.m.npy
// RUN: cmp %t/kg/step-1/adam.v.npy %t/kg/step-2/adam.v.npy
// RUN: FileCheck %s --check-prefix=T1 --input-file %t/kg/step-2/t.txt
// RUN: not cmp -s %t/kg/step-2/lin.w.npy %t/kg/step-3/lin.w.npy

// Without --keep-going the refused step ends the run, with exit code 1;
// the parameters and outputs of the last step run are still written.
// RUN: not capture-interp %s --entry train --steps 3 --input x=%t/x.npy --input-at 2:x=%t/nan.npy --save-params %t/stop --output-dir %t/stop-out > %t/stop.out 2> %t/stop.err
// RUN: FileCheck %s --check-prefix=STOP --match-full-lines < %t/stop.out
// STOP:      step 1: loss=10.8162498 grad_norm=20.6905003
// STOP-NEXT: step 2: update not applied: grad_norm is nan; weights, moments and the step counter are unchanged
// STOP-NOT: step 3
// RUN: FileCheck %s --check-prefix=STOP-ERR < %t/stop.err
// STOP-ERR: capture-interp: error: step 2: the update was not applied (non-finite gradient norm); stopped after step 2 of 3 (pass --keep-going to run the remaining steps)
// RUN: cmp %t/kg/step-1/lin.w.npy %t/stop/lin.w.npy
// RUN: %python %S/Inputs/print_npy.py %t/stop-out/grad_norm.npy | FileCheck %s --check-prefix=STOP-NORM
// STOP-NORM: [] nan

// Saved parameters resume training: a run from the weights after 2 steps
// sees what step 3 saw (the outputs come before the update).
// RUN: capture-interp %s --entry train --steps 2 --input x=%t/x.npy --save-params %t/two
// RUN: capture-interp %s --entry train --steps 1 --input x=%t/x.npy --param lin.w=%t/two/lin.w.npy --param lin.b=%t/two/lin.b.npy | FileCheck %s --check-prefix=RESUME
// RESUME: step 1: loss=9.71119118 grad_norm=19.5509052

// Without --steps a split step is evaluated once, with the runtime's inputs
// of its first step.
// RUN: capture-interp %s --entry train --input x=%t/x.npy | FileCheck %s --check-prefix=ONCE
// ONCE:      output loss []: 10.8162
// ONCE-NEXT: output grad_norm []: 20.6905

ag.weight @lin.w trainable : tensor<4x2xf32> = dense<[[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6], [0.7, -0.8]]>
ag.weight @lin.b trainable : tensor<2xf32> = #ag.init<zeros>
ag.weight @frozen : tensor<2xf32> = dense<[1.0, -1.0]>
ag.param_pack @train.params weights([@lin.w, @lin.b]) offsets([0, 64]) size(66)

ag.train_step @train(%x: tensor<3x4xf32> {ag.name = "x"},
                     %mgn: tensor<f32> {ag.hyper = "max_grad_norm", ag.name = "max_grad_norm"},
                     %h: tensor<7xf32> {ag.hyper = "adamw", ag.name = "adamw"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>, max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @lin.w : tensor<4x2xf32>
  %b = ag.read_weight @lin.b : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %z = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %zz = ag.mul %z, %z : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %loss = ag.sum %zz : tensor<3x2xf32> -> tensor<f32>
  %gz = ag.add %z, %z : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %gw = ag.matmul %x, %gz {transpose_a} : (tensor<3x4xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %gb = ag.sum %gz axis = 0 : tensor<3x2xf32> -> tensor<2xf32>
  %g = ag.pack_grads @train.params(%gw, %gb) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<66xf32>
  %gg = ag.mul %g, %g : (tensor<66xf32>, tensor<66xf32>) -> tensor<66xf32>
  %ss = ag.sum %gg : tensor<66xf32> -> tensor<f32>
  %n = ag.sqrt %ss : tensor<f32>
  %tiny = ag.constant dense<1.0e-6> : tensor<f32>
  %d = ag.add %n, %tiny : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %q = ag.div %mgn, %d : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %one = ag.constant dense<1.0> : tensor<f32>
  %scale = ag.minimum %q, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %gs = ag.mul %g, %scale : (tensor<66xf32>, tensor<f32>) -> tensor<66xf32>
  ag.apply_adamw @train.params grads(%gs) grad_norm(%n) hyper(%h) : tensor<66xf32>, tensor<f32>, tensor<7xf32>
  ag.return %loss, %n : tensor<f32>, tensor<f32>
}

ag.forward @predict(%x: tensor<3x4xf32> {ag.name = "x"}) -> (tensor<3x2xf32> {ag.name = "y"}) {
  %w = ag.read_weight @lin.w : tensor<4x2xf32>
  %y = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  ag.return %y : tensor<3x2xf32>
}
