// RUN: not capture-aot %s -o %t.capmod 2>&1 | FileCheck %s
// RUN: not capture-aot %S/does-not-exist.mlir -o %t.capmod 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not capture-aot %S/Inputs/malformed.mlir -o %t.capmod 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --target=gpuu 2>&1 | FileCheck %s --check-prefix=OPTION --implicit-check-not="see current operation"
// RUN: not capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --target=gpuu --mlir-print-op-on-diagnostic 2>&1 | FileCheck %s --check-prefix=OPIR
// RUN: not capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --min-matmul-workgroups=eight 2>&1 | FileCheck %s --check-prefix=WGNUM
// RUN: not capture-aot %S/../../examples/ppo_train.mlir -o %t.capmod --min-matmul-workgroup=8 2>&1 | FileCheck %s --check-prefix=WGTYPO

// A bad option is reported alone, without the whole module after it
// (unless --mlir-print-op-on-diagnostic asks for it).
// OPTION: error: ag-lower-to-gpu: unknown target 'gpuu': expected 'lavapipe', 'gpu' or 'cpu' (did you mean 'gpu'?)
// OPIR: note: see current operation
// A count that is not a number, and a near miss of the option's name.
// WGNUM: for the --min-matmul-workgroups option: 'eight' value invalid for uint argument!
// WGTYPO: Unknown command line argument '--min-matmul-workgroup=8'
// WGTYPO: Did you mean '--min-matmul-workgroups=8'?

// capture-aot runs the guard first: a trace with a read-back is rejected,
// naming the site, and no module is written.

// CHECK: capture-aot-errors.mlir:[[@LINE+3]]:1: error: capture guard: entry @f did work outside the graph
// CHECK: capture-aot-errors.mlir:[[@LINE+4]]:3: note: download (read-back) of a device value here, 1 time
// MISSING: capture-aot: error: cannot open input file '{{.*}}does-not-exist.mlir'
ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %0 = ag.exp %x : tensor<2xf32>
  ag.download %0 : tensor<2xf32>
  ag.return %0 : tensor<2xf32>
}

// MALFORMED: malformed.mlir:3:{{[0-9]+}}: error: use of undeclared SSA value name
