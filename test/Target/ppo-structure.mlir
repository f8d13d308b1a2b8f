// RUN: capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --print-module | FileCheck %s
// RUN: capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=ADAMW
// RUN: capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=NORM
// RUN: capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=HEAD
// RUN: capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=BIAS
// RUN: capture-run %t.capmod --info | FileCheck %s --check-prefix=INFO

// The structure of the compiled PPO step (batch 64), from the module file:
// a ratchet on fusion. 20 dispatches today (120 before dispatch regions,
// 45 before the workgroup region, 24 before the bias gradients joined
// their weight gradients' matmuls): update this count when fusion improves,
// and never let it grow. The loss head and its gradient (from the last
// Linear layers' matmuls to the gradients the backward matmuls read) are
// one workgroup-region dispatch; AdamW over all parameters is one
// dispatch, with the clipping in it; the gradient norm is a two-pass
// reduction of the squares, its sqrt in the final pass; the whole step is
// one entry the runtime submits once.

// CHECK-LABEL: entry train:
// CHECK-COUNT-20: {{^}}  dispatch
// CHECK-NOT: {{^}}  dispatch

// ADAMW-COUNT-1: dispatch adamw_add_div_minimum_mul_
// ADAMW-NOT: dispatch adamw

// HEAD-COUNT-1: dispatch workgroup_
// HEAD-NOT: dispatch workgroup_

// No bias gradient is a kernel of its own: the four 64-wide ones are summed
// by their weight gradients' matmuls, the last layers' by the head.
// BIAS-COUNT-4: dispatch matmul_sum_
// BIAS-NOT: dispatch sum_

// NORM: dispatch mul_sum_sqrt_partial_
// NORM-NEXT: barrier
// NORM-NEXT: dispatch mul_sum_sqrt_final_
// NORM-NEXT: barrier
// NORM-NEXT: dispatch adamw_

// INFO: train{{ +}}Train{{ +}}20{{ }}
// Scratch within 1.1x of the liveness lower bound (the most bytes live at
// one dispatch): 1.00x to 1.09x.
// INFO: train{{ +}}scratch {{[0-9]+}} bytes, liveness lower bound {{[0-9]+}} bytes (1.0{{[0-9]}}x)
// One packed upload and one packed download per step: the entry's inputs
// are one Input buffer and its outputs one Output buffer (the runtime
// records the entry as one command buffer, submitted once per call).
// INFO: buffers:
// INFO: {{^}}  Input{{ +}}1{{ }}
// INFO: {{^}}  Output{{ +}}1{{ }}
