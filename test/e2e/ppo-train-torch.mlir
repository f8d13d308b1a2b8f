// REQUIRES: torch, ppo-peer
// RUN: rm -rf %t && mkdir -p %t/interp %t/device %t/cpu %t/host
// RUN: %python %S/Inputs/ppo_train_check.py interp capture-aot capture-interp %{ppo_torch} %S/../../examples/ppo_train.mlir %t/interp --steps 20 | FileCheck %s --check-prefix=INTERP
// RUN: %python %S/Inputs/ppo_train_check.py device capture-aot capture-run %{ppo_torch} %S/../../examples/ppo_train.mlir %t/device --steps 20 | FileCheck %s --check-prefix=DEVICE
// RUN: %python %S/Inputs/ppo_train_check.py device capture-aot capture-run %{ppo_torch} %S/../../examples/ppo_train.mlir %t/cpu --steps 20 --aot-flag=--target=cpu --run-flag=--device=vulkan | FileCheck %s --check-prefix=DEVICE
// RUN: %python %S/Inputs/ppo_train_check.py device capture-aot capture-run %{ppo_torch} %S/../../examples/ppo_train.mlir %t/host --steps 20 --aot-flag=--target=cpu --run-flag=--device=host | FileCheck %s --check-prefix=HOST

// The PPO training step (examples/ppo_train.mlir: forward, ag-autodiff,
// clip_grad_norm_(0.5), AdamW) trained for 20 steps from PyTorch's initial
// weights on its fixed batch, in the reference interpreter (f32) and
// replayed on the device (one submission per step): every step's loss and
// gradient norm and the final weights match ppo_torch.py's within 1e-4
// relative (1e-5 absolute floor). The same for a module compiled for the
// cpu target (host code beside SPIR-V shaped for one-invocation subgroups),
// whose SPIR-V the device runs, and whose host code the host device runs
// (capture-run --device host: no Vulkan, nothing recorded).

// INTERP: torch replica matches ppo_torch.py: ok
// INTERP: interp step 20 loss: {{.*}}: ok
// INTERP: interp step 20 grad_norm: {{.*}}: ok
// INTERP: interp final weights after 20 steps ({{.*}}): ok

// DEVICE: torch replica matches ppo_torch.py: ok
// DEVICE: device step 20 loss: {{.*}}: ok
// DEVICE: device step 20 grad_norm: {{.*}}: ok
// DEVICE: device final weights after 20 steps ({{.*}}): ok
// DEVICE: command buffers recorded: 1

// HOST: torch replica matches ppo_torch.py: ok
// HOST: device step 20 loss: {{.*}}: ok
// HOST: device step 20 grad_norm: {{.*}}: ok
// HOST: device final weights after 20 steps ({{.*}}): ok
// HOST: command buffers recorded: 0
