// RUN: capture-aot %S/../../examples/mlp_train.mlir -o %t.capmod --print-module | FileCheck %s
// RUN: capture-aot %S/../../examples/mlp_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=RELU
// RUN: capture-aot %S/../../examples/mlp_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=HEAD
// RUN: capture-aot %S/../../examples/mlp_train.mlir -o %t.capmod --print-module | FileCheck %s --check-prefix=NORM

// The structure of the compiled MLP step (784-256-256-10, batch 128), from
// the module file: a ratchet on fusion like ppo-structure.mlir. 13
// dispatches (14 before the norm's final pass added the labels' poison, 17
// before the loss head became one workgroup kernel, 19 before relu's
// gradient read its result): the label check, three Linear layers, the
// loss head (bias add, cross-entropy, softmax, one_hot, the logits'
// gradient and its bias sum) in one workgroup, the last layer's weight
// gradient, two input gradients with relu's mask, two weight gradients
// with their bias sums, the two-pass norm (its final pass adds the poison
// that makes it NaN on a bad label), and AdamW over all parameters.

// CHECK-LABEL: entry train:
// CHECK-COUNT-13: {{^}}  dispatch
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

// The poison of the label check is added in the norm's final pass, which
// binds it: no add kernel of its own.
// NORM-LABEL: entry train:
// NORM: dispatch check_indices_{{[0-9]+}} groups [1, 1, 1] read {{.*}} write [[POISON:[0-9]+]][[[AT:[0-9]+]], {{[0-9]+}})
// NORM-NOT: dispatch add_
// NORM: dispatch mul_sum_sqrt_add_final_{{[0-9]+}} groups [1, 1, 1] read {{[0-9]+}}[{{[0-9]+}}, {{[0-9]+}}) read [[POISON]][[[AT]], {{[0-9]+}}) write
// NORM-NOT: dispatch add_
// NORM: entry predict:
