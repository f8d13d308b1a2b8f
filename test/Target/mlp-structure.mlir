// RUN: capture-aot %S/../../examples/mlp_train.mlir -o %t.capmod --print-module | FileCheck %s
// RUN: capture-aot %S/../../examples/mlp_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=RELU

// The structure of the compiled MLP step (784-256-256-10, batch 128), from
// the module file: a ratchet on fusion like ppo-structure.mlir. 17
// dispatches (19 before relu's gradient read its result): the label check,
// three Linear layers, the loss head's four small kernels, three weight
// gradients with their bias sums, two input gradients with relu's mask,
// the two-pass norm, the add that makes the norm NaN on a bad label, and
// AdamW over all parameters.

// CHECK-LABEL: entry train:
// CHECK-COUNT-17: {{^}}  dispatch
// CHECK-NOT: {{^}}  dispatch
// CHECK: entry predict:

// Both hidden layers apply their relu in the matmul's epilogue: the
// pre-activations are never stored, and no relu is a kernel of its own.
// RELU-LABEL: entry train:
// RELU-COUNT-2: dispatch matmul_add_relu_
// RELU-NOT: dispatch relu_
// RELU: dispatch adamw_
