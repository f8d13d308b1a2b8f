// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Inputs/write_npy.py %t/x.npy f32 5,3 0.5,-1,2,0.25,1,1,-0.5,0.75,-2,0.5,1.5,-1,0.3,0.2,-0.7
// RUN: %python %S/../Inputs/write_npy.py %t/k.npy f32 5,1 0.4,-1.5,2,0.1,-0.3
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=FUSED
// RUN: capture-aot %s -o %t/gpu.capmod --target=gpu
// RUN: capture-aot %s -o %t/nofuse.capmod --fuse=false
// RUN: capture-interp %s --entry frozen_mean --steps 3 --input x=%t/x.npy --save-params %t/ref-frozen --output-dir %t/ref-frozen-out > /dev/null
// RUN: capture-interp %s --entry hidden --input x=%t/x.npy --param fc1.weight=%t/ref-frozen/fc1.weight.npy --param fc1.bias=%t/ref-frozen/fc1.bias.npy --output-dir %t/ref-hidden > /dev/null
// RUN: capture-interp %s --entry td3_actor --steps 3 --input obs=%t/x.npy --save-params %t/ref-td3 --output-dir %t/ref-td3-out > /dev/null
// RUN: capture-interp %s --entry act --input obs=%t/x.npy --param actor.0.weight=%t/ref-td3/actor.0.weight.npy --param actor.0.bias=%t/ref-td3/actor.0.bias.npy --param actor.2.weight=%t/ref-td3/actor.2.weight.npy --param actor.2.bias=%t/ref-td3/actor.2.bias.npy --output-dir %t/ref-act > /dev/null
// RUN: capture-run %t/m.capmod --entry frozen_mean --steps 3 --input x=%t/x.npy --output-dir %t/m-frozen-out --save-params %t/m-frozen > /dev/null
// RUN: capture-interp %s --entry frozen_mean --steps 3 --input x=%t/x.npy --compare %t/m-frozen-out | FileCheck %s --check-prefix=STEP
// RUN: capture-interp %s --entry hidden --input x=%t/x.npy --param fc1.weight=%t/m-frozen/fc1.weight.npy --param fc1.bias=%t/m-frozen/fc1.bias.npy --compare %t/ref-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: capture-run %t/m.capmod --entry td3_actor --steps 3 --input obs=%t/x.npy --output-dir %t/m-td3-out --save-params %t/m-td3 > /dev/null
// RUN: capture-interp %s --entry td3_actor --steps 3 --input obs=%t/x.npy --compare %t/m-td3-out | FileCheck %s --check-prefix=STEP
// RUN: capture-interp %s --entry act --input obs=%t/x.npy --param actor.0.weight=%t/m-td3/actor.0.weight.npy --param actor.0.bias=%t/m-td3/actor.0.bias.npy --param actor.2.weight=%t/m-td3/actor.2.weight.npy --param actor.2.bias=%t/m-td3/actor.2.bias.npy --compare %t/ref-act | FileCheck %s --check-prefix=ACT
// RUN: capture-run %t/m.capmod --entry splats --input x=%t/x.npy --input k=%t/k.npy --output-dir %t/m-splats > /dev/null
// RUN: capture-interp %s --entry splats --input x=%t/x.npy --input k=%t/k.npy --compare %t/m-splats | FileCheck %s --check-prefix=SPLATS
// RUN: capture-run %t/gpu.capmod --entry frozen_mean --steps 3 --input x=%t/x.npy --output-dir %t/gpu-frozen-out --save-params %t/gpu-frozen > /dev/null
// RUN: capture-interp %s --entry frozen_mean --steps 3 --input x=%t/x.npy --compare %t/gpu-frozen-out | FileCheck %s --check-prefix=STEP
// RUN: capture-interp %s --entry hidden --input x=%t/x.npy --param fc1.weight=%t/gpu-frozen/fc1.weight.npy --param fc1.bias=%t/gpu-frozen/fc1.bias.npy --compare %t/ref-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: capture-run %t/gpu.capmod --entry td3_actor --steps 3 --input obs=%t/x.npy --output-dir %t/gpu-td3-out --save-params %t/gpu-td3 > /dev/null
// RUN: capture-interp %s --entry td3_actor --steps 3 --input obs=%t/x.npy --compare %t/gpu-td3-out | FileCheck %s --check-prefix=STEP
// RUN: capture-interp %s --entry act --input obs=%t/x.npy --param actor.0.weight=%t/gpu-td3/actor.0.weight.npy --param actor.0.bias=%t/gpu-td3/actor.0.bias.npy --param actor.2.weight=%t/gpu-td3/actor.2.weight.npy --param actor.2.bias=%t/gpu-td3/actor.2.bias.npy --compare %t/ref-act | FileCheck %s --check-prefix=ACT
// RUN: capture-run %t/gpu.capmod --entry splats --input x=%t/x.npy --input k=%t/k.npy --output-dir %t/gpu-splats > /dev/null
// RUN: capture-interp %s --entry splats --input x=%t/x.npy --input k=%t/k.npy --compare %t/gpu-splats | FileCheck %s --check-prefix=SPLATS
// RUN: capture-run %t/nofuse.capmod --entry frozen_mean --steps 3 --input x=%t/x.npy --output-dir %t/nofuse-frozen-out --save-params %t/nofuse-frozen > /dev/null
// RUN: capture-interp %s --entry frozen_mean --steps 3 --input x=%t/x.npy --compare %t/nofuse-frozen-out | FileCheck %s --check-prefix=STEP
// RUN: capture-interp %s --entry hidden --input x=%t/x.npy --param fc1.weight=%t/nofuse-frozen/fc1.weight.npy --param fc1.bias=%t/nofuse-frozen/fc1.bias.npy --compare %t/ref-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: capture-run %t/nofuse.capmod --entry td3_actor --steps 3 --input obs=%t/x.npy --output-dir %t/nofuse-td3-out --save-params %t/nofuse-td3 > /dev/null
// RUN: capture-interp %s --entry td3_actor --steps 3 --input obs=%t/x.npy --compare %t/nofuse-td3-out | FileCheck %s --check-prefix=STEP
// RUN: capture-interp %s --entry act --input obs=%t/x.npy --param actor.0.weight=%t/nofuse-td3/actor.0.weight.npy --param actor.0.bias=%t/nofuse-td3/actor.0.bias.npy --param actor.2.weight=%t/nofuse-td3/actor.2.weight.npy --param actor.2.bias=%t/nofuse-td3/actor.2.bias.npy --compare %t/ref-act | FileCheck %s --check-prefix=ACT
// RUN: capture-run %t/nofuse.capmod --entry splats --input x=%t/x.npy --input k=%t/k.npy --output-dir %t/nofuse-splats > /dev/null
// RUN: capture-interp %s --entry splats --input x=%t/x.npy --input k=%t/k.npy --compare %t/nofuse-splats | FileCheck %s --check-prefix=SPLATS

// Gradients through frozen matmuls whose upstream gradient is a splat
// constant (the mean's), compiled for lavapipe, for --target=gpu and with
// --fuse=false, trained for three steps on the device and in the
// interpreter from the same weights and batch (batch 5, obs 3, hidden 7):
// `out.mean()` of a net whose last Linear is frozen, and TD3's actor loss
// -q(obs, actor(obs)).mean() with the critic frozen. The loss and gradient
// norm of the third step are compared, and so are the trained layers'
// outputs (the interpreter evaluates them with the device's weights and
// with its own). A matmul dispatch region multiplies region inputs only,
// so the splat gradient is an input read from the constants buffer, with
// relu' as the matmul's epilogue. `splats` multiplies splat constants as
// the left, right (transpose_b, also read by the epilogue) and transposed
// left operand.

// FUSED: buffer [[C:[0-9]+]]: Constants
// FUSED: entry frozen_mean:
// FUSED: dispatch matmul_compare_sub_mul_{{[0-9]+}} groups [1, 1, 1] read [[C]][
// FUSED: entry td3_actor:
// FUSED: dispatch matmul_compare_sub_mul_{{[0-9]+}} groups [1, 1, 1] read [[C]][
// FUSED: entry splats:
// FUSED-NEXT: input x
// FUSED-NEXT: input k
// FUSED-COUNT-3: output
// FUSED-NEXT: dispatch matmul_tanh_mul_{{[0-9]+}} groups [1, 1, 1] read [[C]][{{[0-9]+}}, {{[0-9]+}}) read [[C]][
// FUSED-NEXT: dispatch matmul_add_{{[0-9]+}} groups [1, 1, 1] read {{[0-9]+}}[{{[0-9]+}}, {{[0-9]+}}) read [[C]][{{[0-9]+}}, {{[0-9]+}}) read [[C]][
// FUSED-NEXT: dispatch matmul_sub_{{[0-9]+}} groups [1, 1, 1] read [[C]][

// STEP: compare loss: {{.*}}: ok
// STEP: compare grad_norm: {{.*}}: ok
// STEP-NOT: FAIL
// HIDDEN: compare h: {{.*}}: ok
// ACT: compare action: {{.*}}: ok
// SPLATS-DAG: compare lhs: {{.*}}: ok
// SPLATS-DAG: compare rhs: {{.*}}: ok
// SPLATS-DAG: compare both: {{.*}}: ok
// SPLATS-NOT: FAIL

ag.weight @fc1.weight trainable : tensor<7x3xf32> = #ag.init<linear, fan_in = 3, seed = 1>
ag.weight @fc1.bias trainable : tensor<7xf32> = #ag.init<linear, fan_in = 3, seed = 2>
ag.weight @fc2.weight : tensor<2x7xf32> = #ag.init<linear, fan_in = 7, seed = 3>
ag.weight @actor.0.weight trainable : tensor<7x3xf32> = #ag.init<linear, fan_in = 3, seed = 11>
ag.weight @actor.0.bias trainable : tensor<7xf32> = #ag.init<linear, fan_in = 3, seed = 12>
ag.weight @actor.2.weight trainable : tensor<2x7xf32> = #ag.init<linear, fan_in = 7, seed = 13>
ag.weight @actor.2.bias trainable : tensor<2xf32> = #ag.init<linear, fan_in = 7, seed = 14>
ag.weight @critic.0.weight : tensor<6x5xf32> = #ag.init<linear, fan_in = 5, seed = 21>
ag.weight @critic.0.bias : tensor<6xf32> = #ag.init<linear, fan_in = 5, seed = 22>
ag.weight @critic.2.weight : tensor<1x6xf32> = #ag.init<linear, fan_in = 6, seed = 23>
ag.weight @critic.2.bias : tensor<1xf32> = #ag.init<linear, fan_in = 6, seed = 24>

// out.mean() through a frozen last layer.
ag.train_step @frozen_mean(%x: tensor<5x3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>} {
  %w1 = ag.read_weight @fc1.weight : tensor<7x3xf32>
  %b1 = ag.read_weight @fc1.bias : tensor<7xf32>
  %w2 = ag.read_weight @fc2.weight : tensor<2x7xf32>
  %z1 = ag.matmul %x, %w1 {transpose_b} : (tensor<5x3xf32>, tensor<7x3xf32>) -> tensor<5x7xf32>
  %a1 = ag.add %z1, %b1 : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  %h = ag.relu %a1 : tensor<5x7xf32>
  %out = ag.matmul %h, %w2 {transpose_b} : (tensor<5x7xf32>, tensor<2x7xf32>) -> tensor<5x2xf32>
  %loss = ag.mean %out : tensor<5x2xf32> -> tensor<f32>
  ag.return %loss : tensor<f32>
}

// The first layer after training, to compare the trained weights.
ag.forward @hidden(%x: tensor<5x3xf32> {ag.name = "x"}) -> (tensor<5x7xf32> {ag.name = "h"}) {
  %w1 = ag.read_weight @fc1.weight : tensor<7x3xf32>
  %b1 = ag.read_weight @fc1.bias : tensor<7xf32>
  %z1 = ag.matmul %x, %w1 {transpose_b} : (tensor<5x3xf32>, tensor<7x3xf32>) -> tensor<5x7xf32>
  %a1 = ag.add %z1, %b1 : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  ag.return %a1 : tensor<5x7xf32>
}

// TD3's actor loss -q(obs, actor(obs)).mean(), the critic frozen.
ag.train_step @td3_actor(%obs: tensor<5x3xf32> {ag.name = "obs"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>,
                max_grad_norm = 1.0 : f32} {
  %a0w = ag.read_weight @actor.0.weight : tensor<7x3xf32>
  %a0b = ag.read_weight @actor.0.bias : tensor<7xf32>
  %a2w = ag.read_weight @actor.2.weight : tensor<2x7xf32>
  %a2b = ag.read_weight @actor.2.bias : tensor<2xf32>
  %c0w = ag.read_weight @critic.0.weight : tensor<6x5xf32>
  %c0b = ag.read_weight @critic.0.bias : tensor<6xf32>
  %c2w = ag.read_weight @critic.2.weight : tensor<1x6xf32>
  %c2b = ag.read_weight @critic.2.bias : tensor<1xf32>
  %z1 = ag.matmul %obs, %a0w {transpose_b} : (tensor<5x3xf32>, tensor<7x3xf32>) -> tensor<5x7xf32>
  %y1 = ag.add %z1, %a0b : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  %h1 = ag.relu %y1 : tensor<5x7xf32>
  %z2 = ag.matmul %h1, %a2w {transpose_b} : (tensor<5x7xf32>, tensor<2x7xf32>) -> tensor<5x2xf32>
  %y2 = ag.add %z2, %a2b : (tensor<5x2xf32>, tensor<2xf32>) -> tensor<5x2xf32>
  %act = ag.tanh %y2 : tensor<5x2xf32>
  %sa = ag.concat %obs, %act axis = 1 : (tensor<5x3xf32>, tensor<5x2xf32>) -> tensor<5x5xf32>
  %q1 = ag.matmul %sa, %c0w {transpose_b} : (tensor<5x5xf32>, tensor<6x5xf32>) -> tensor<5x6xf32>
  %qy = ag.add %q1, %c0b : (tensor<5x6xf32>, tensor<6xf32>) -> tensor<5x6xf32>
  %qh = ag.relu %qy : tensor<5x6xf32>
  %q2 = ag.matmul %qh, %c2w {transpose_b} : (tensor<5x6xf32>, tensor<1x6xf32>) -> tensor<5x1xf32>
  %q = ag.add %q2, %c2b : (tensor<5x1xf32>, tensor<1xf32>) -> tensor<5x1xf32>
  %m = ag.mean %q : tensor<5x1xf32> -> tensor<f32>
  %loss = ag.neg %m : tensor<f32>
  ag.return %loss : tensor<f32>
}

// The trained actor's actions.
ag.forward @act(%obs: tensor<5x3xf32> {ag.name = "obs"}) -> (tensor<5x2xf32> {ag.name = "action"}) {
  %a0w = ag.read_weight @actor.0.weight : tensor<7x3xf32>
  %a0b = ag.read_weight @actor.0.bias : tensor<7xf32>
  %a2w = ag.read_weight @actor.2.weight : tensor<2x7xf32>
  %a2b = ag.read_weight @actor.2.bias : tensor<2xf32>
  %z1 = ag.matmul %obs, %a0w {transpose_b} : (tensor<5x3xf32>, tensor<7x3xf32>) -> tensor<5x7xf32>
  %y1 = ag.add %z1, %a0b : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  %h1 = ag.relu %y1 : tensor<5x7xf32>
  %z2 = ag.matmul %h1, %a2w {transpose_b} : (tensor<5x7xf32>, tensor<2x7xf32>) -> tensor<5x2xf32>
  %y2 = ag.add %z2, %a2b : (tensor<5x2xf32>, tensor<2xf32>) -> tensor<5x2xf32>
  %act = ag.tanh %y2 : tensor<5x2xf32>
  ag.return %act : tensor<5x2xf32>
}

// Splat operands of matmuls with epilogues, both sides and transposed.
ag.forward @splats(%x: tensor<5x3xf32> {ag.name = "x"}, %k: tensor<5x1xf32> {ag.name = "k"})
    -> (tensor<5x7xf32> {ag.name = "lhs"}, tensor<5x5xf32> {ag.name = "rhs"}, tensor<3x3xf32> {ag.name = "both"}) {
  %g = ag.constant dense<-2.000000e-01> : tensor<5x3xf32>
  %w = ag.constant dense<7.500000e-01> : tensor<3x7xf32>
  %c = ag.constant dense<1.250000e+00> : tensor<5x1xf32>
  %e = ag.constant dense<3.000000e+00> : tensor<f32>
  %l = ag.matmul %g, %w : (tensor<5x3xf32>, tensor<3x7xf32>) -> tensor<5x7xf32>
  %lt = ag.tanh %l : tensor<5x7xf32>
  %ly = ag.mul %lt, %e : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  %r = ag.matmul %k, %c {transpose_b} : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x5xf32>
  %ry = ag.add %r, %c : (tensor<5x5xf32>, tensor<5x1xf32>) -> tensor<5x5xf32>
  %b = ag.matmul %g, %x {transpose_a} : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<3x3xf32>
  %by = ag.sub %b, %e : (tensor<3x3xf32>, tensor<f32>) -> tensor<3x3xf32>
  ag.return %ly, %ry, %by : tensor<5x7xf32>, tensor<5x5xf32>, tensor<3x3xf32>
}
