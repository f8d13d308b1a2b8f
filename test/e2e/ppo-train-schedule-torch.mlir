// REQUIRES: torch, ppo-peer
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/ppo_train_check.py device capture-aot capture-run %{ppo_torch} %S/../../examples/ppo_train.mlir %t --steps 8 --lr-at 3=1e-3 --max-grad-norm-at 4=0.05 --lr-at 6=0.0 --max-grad-norm-at 7=5.0 | FileCheck %s

// The learning rate and the clip limit change between steps without
// recompiling or re-recording: the runtime rewrites the hyperparameter
// slots of the packed input buffer, the command buffer recorded at load is
// the only one, and every step matches PyTorch's with the same schedule
// (lr 1e-3 from step 3, a clip limit of 0.05 that clips from step 4, lr 0
// from step 6 (only the moments move), and a limit of 5 that no longer
// clips from step 7).

// CHECK: device step 8 loss: {{.*}}: ok
// CHECK: device step 8 grad_norm: {{.*}}: ok
// CHECK: device final weights after 8 steps ({{.*}}): ok
// CHECK: command buffers recorded: 1
