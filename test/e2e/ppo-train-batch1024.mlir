// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../../bench/ppo_model.py --batch 1024 > %t/ppo.mlir
// RUN: %python %S/../../examples/ppo_init.py %t/d --batch 1024 > /dev/null
// RUN: capture-aot %t/ppo.mlir -o %t/m.capmod --print-module | FileCheck %s --check-prefix=FUSED
// RUN: capture-run %t/m.capmod --entry train --steps 3 --output-dir %t/gpu --input obs=%t/d/input.obs.npy --input act=%t/d/input.act.npy --input adv=%t/d/input.adv.npy --input ret=%t/d/input.ret.npy --input old_logp=%t/d/input.old_logp.npy --param actor.0.weight=%t/d/init.actor.0.weight.npy --param actor.0.bias=%t/d/init.actor.0.bias.npy --param actor.2.weight=%t/d/init.actor.2.weight.npy --param actor.2.bias=%t/d/init.actor.2.bias.npy --param actor.4.weight=%t/d/init.actor.4.weight.npy --param actor.4.bias=%t/d/init.actor.4.bias.npy --param critic.0.weight=%t/d/init.critic.0.weight.npy --param critic.0.bias=%t/d/init.critic.0.bias.npy --param critic.2.weight=%t/d/init.critic.2.weight.npy --param critic.2.bias=%t/d/init.critic.2.bias.npy --param critic.4.weight=%t/d/init.critic.4.weight.npy --param critic.4.bias=%t/d/init.critic.4.bias.npy --param log_std=%t/d/init.log_std.npy > /dev/null
// RUN: capture-interp %t/ppo.mlir --entry train --steps 3 --compare %t/gpu --tolerance 1e-5 --input obs=%t/d/input.obs.npy --input act=%t/d/input.act.npy --input adv=%t/d/input.adv.npy --input ret=%t/d/input.ret.npy --input old_logp=%t/d/input.old_logp.npy --param actor.0.weight=%t/d/init.actor.0.weight.npy --param actor.0.bias=%t/d/init.actor.0.bias.npy --param actor.2.weight=%t/d/init.actor.2.weight.npy --param actor.2.bias=%t/d/init.actor.2.bias.npy --param actor.4.weight=%t/d/init.actor.4.weight.npy --param actor.4.bias=%t/d/init.actor.4.bias.npy --param critic.0.weight=%t/d/init.critic.0.weight.npy --param critic.0.bias=%t/d/init.critic.0.bias.npy --param critic.2.weight=%t/d/init.critic.2.weight.npy --param critic.2.bias=%t/d/init.critic.2.bias.npy --param critic.4.weight=%t/d/init.critic.4.weight.npy --param critic.4.bias=%t/d/init.critic.4.bias.npy --param log_std=%t/d/init.log_std.npy | FileCheck %s

// The benchmark's PPO step at batch 1024 (20 dispatches), whose 1024x8
// loss head (8192 elements, the most a workgroup region takes) is one
// workgroup kernel: trained for three steps on the device and in the
// interpreter from the same weights and batch, so that the third step's
// loss and gradient norm follow from two updates made with the head's
// gradients.

// FUSED: kernel {{[0-9]+}}: workgroup_
// FUSED-COUNT-20: {{^}} dispatch {{[a-z]}}
// FUSED-NOT: dispatch

// CHECK: compare loss: {{.*}}: ok
// CHECK: compare grad_norm: {{.*}}: ok
// CHECK-NOT: FAIL
