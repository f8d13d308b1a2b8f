// RUN: capture-aot %S/../../examples/mlp_train.mlir -o %t.capmod --print-module | FileCheck %s
// RUN: capture-aot %S/../../examples/mlp_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=RELU
// RUN: capture-aot %S/../../examples/mlp_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=HEAD

// The structure of the compiled MLP step (784-256-256-10, batch 128), from
// the module file: a ratchet on fusion like ppo-structure.mlir. 14
// dispatches (17 before the loss head became one workgroup kernel, 19
// before relu's gradient read its result): the label check, three Linear
// layers, the loss head (bias add, cross-entropy, softmax, one_hot, the
// logits' gradient and its bias sum) in one workgroup, the last layer's
// weight gradient, two input gradients with relu's mask, two weight
// gradients with their bias sums, the two-pass norm, the add that makes
// the norm NaN on a bad label, and AdamW over all parameters.

// CHECK-LABEL: entry train:
// CHECK-COUNT-14: {{^}}  dispatch
// CHECK-NOT: {{^}}  dispatch
// CHECK: entry predict:

// The loss head is one kernel: no softmax, one_hot or cross-entropy kernel
// of its own.
// HEAD-LABEL: entry train:
// HEAD-NOT: dispatch {{softmax|one_hot|cross_entropy}}_
// HEAD: dispatch workgroup_add_cross_entropy_
// HEAD-NOT: dispatch {{softmax|one_hot|cross_entropy}}_
// HEAD: entry predict:

// Both hidden layers apply their relu in the matmul's epilogue: the
// pre-activations are never stored, and no relu is a kernel of its own.
// RELU-LABEL: entry train:
// RELU-COUNT-2: dispatch matmul_add_relu_
// RELU-NOT: dispatch relu_
// RELU: dispatch adamw_
