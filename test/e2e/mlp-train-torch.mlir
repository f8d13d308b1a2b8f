// REQUIRES: torch
// RUN: rm -rf %t && mkdir -p %t/interp %t/device
// RUN: %python %S/Inputs/mlp_train_check.py device capture-aot capture-run %S/../../examples/mlp_train.mlir %t/device --steps 10 | FileCheck %s --check-prefix=DEVICE
// RUN: %python %S/Inputs/mlp_train_check.py interp capture-aot capture-interp %S/../../examples/mlp_train.mlir %t/interp --steps 3 | FileCheck %s --check-prefix=INTERP

// The MLP classifier workload (examples/mlp_train.mlir: 784-256-256-10,
// ReLU, cross-entropy on i32 labels, clip_grad_norm_(1.0), AdamW) trains
// from PyTorch's initial weights to PyTorch's losses, gradient norms and
// weights: 10 steps on the device, 3 in the (slower) reference interpreter.

// DEVICE: device step 10 loss: {{.*}}: ok
// DEVICE: device step 10 grad_norm: {{.*}}: ok
// DEVICE: device final weights after 10 steps ({{.*}}): ok

// INTERP: interp step 3 loss: {{.*}}: ok
// INTERP: interp step 3 grad_norm: {{.*}}: ok
// INTERP: interp final weights after 3 steps ({{.*}}): ok
