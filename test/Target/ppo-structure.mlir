// RUN: capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --print-module | FileCheck %s
// RUN: capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=ADAMW
// RUN: capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=NORM
// RUN: capture-run %t.capmod --info | FileCheck %s --check-prefix=INFO

// The structure of the compiled PPO step (batch 64), from the module file:
// a ratchet on fusion. 45 dispatches today (120 before dispatch regions;
// the target is 25): update this count when fusion improves, and never let
// it grow. AdamW over all parameters is one dispatch, with the clipping in
// it; the gradient norm is a two-pass reduction of the squares (plus its
// sqrt); the whole step is one entry the runtime submits once.

// CHECK-LABEL: entry train:
// CHECK-COUNT-45: {{^}}  dispatch
// CHECK-NOT: {{^}}  dispatch

// ADAMW-COUNT-1: dispatch adamw_add_div_minimum_mul_
// ADAMW-NOT: dispatch adamw

// NORM: dispatch mul_sum_partial_
// NORM-NEXT: barrier
// NORM-NEXT: dispatch mul_sum_final_
// NORM-NEXT: barrier
// NORM-NEXT: dispatch sqrt_
// NORM-NEXT: barrier
// NORM-NEXT: dispatch adamw_

// INFO: train{{ +}}Train{{ +}}45{{ }}
