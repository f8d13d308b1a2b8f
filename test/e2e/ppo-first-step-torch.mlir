// REQUIRES: torch, ppo-peer
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/ppo_check.py capture-opt capture-interp %{ppo_torch} %S/../../examples/ppo_train.mlir %t | FileCheck %s

// The PPO training step (examples/ppo_train.mlir), differentiated by
// ag-autodiff and clipped by ag-insert-clip-scale, gives PyTorch's loss and
// gradient norm on PyTorch's initial weights and inputs (reference
// interpreter, f32).

// CHECK: ppo step 1 loss: {{.*}}: ok
// CHECK: ppo step 1 grad_norm: {{.*}}: ok
