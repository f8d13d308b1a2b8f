// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s
// RUN: capture-opt %s -canonicalize -cse | FileCheck %s --check-prefix=KEPT

// CHECK-LABEL: func.func @schedule
// CHECK: ag.barrier
// CHECK-NEXT: ag.barrier
// A barrier orders memory: canonicalize and cse keep both.
// KEPT-COUNT-2: ag.barrier
func.func @schedule() {
  ag.barrier
  ag.barrier
  return
}
