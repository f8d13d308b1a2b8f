// REQUIRES: torch, ppo-peer
// RUN: rm -rf %t && mkdir -p %t/interp %t/device %t/host
// RUN: %python %S/Inputs/ppo_train_check.py device capture-aot capture-run %{ppo_torch} %S/../../examples/ppo_train.mlir %t/device --steps 6 --nan-at 2 --inf-at 4 | FileCheck %s
// RUN: %python %S/Inputs/ppo_train_check.py interp capture-aot capture-interp %{ppo_torch} %S/../../examples/ppo_train.mlir %t/interp --steps 6 --nan-at 2 --inf-at 4 | FileCheck %s --check-prefix=INTERP
// RUN: %python %S/Inputs/ppo_train_check.py device capture-aot capture-run %{ppo_torch} %S/../../examples/ppo_train.mlir %t/host --steps 6 --nan-at 2 --inf-at 4 --aot-flag=--target=cpu --run-flag=--device=host | FileCheck %s --check-prefix=HOST

// A step whose gradient norm is NaN (a NaN observation) or Inf (advantages
// scaled by 1e30) is refused: the AdamW kernel reads the norm on the device
// and writes nothing, the runtime reports that the update was not applied
// and keeps t; the weights, both moments and t read back bitwise unchanged.
// The following steps match PyTorch's run that skipped those updates. The
// same on the host device (the cpu target's host code, no Vulkan).

// CHECK: device step 2 refused (grad_norm nan): ok
// CHECK: device step 4 refused (grad_norm inf): ok
// CHECK: device final weights after 6 steps ({{.*}}): ok
// CHECK: device step 2 left weights, moments and t=1 bitwise unchanged: ok
// CHECK: device step 4 left weights, moments and t=2 bitwise unchanged: ok
// CHECK: command buffers recorded: 1

// INTERP: interp step 2 refused (grad_norm nan): ok
// INTERP: interp step 4 refused (grad_norm inf): ok
// INTERP: interp final weights after 6 steps ({{.*}}): ok
// INTERP: interp step 2 left weights, moments and t=1 bitwise unchanged: ok
// INTERP: interp step 4 left weights, moments and t=2 bitwise unchanged: ok

// HOST: device step 2 refused (grad_norm nan): ok
// HOST: device step 4 refused (grad_norm inf): ok
// HOST: device final weights after 6 steps ({{.*}}): ok
// HOST: device step 2 left weights, moments and t=1 bitwise unchanged: ok
// HOST: device step 4 left weights, moments and t=2 bitwise unchanged: ok
// HOST: command buffers recorded: 0
