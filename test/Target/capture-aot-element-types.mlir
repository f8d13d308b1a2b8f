// RUN: rm -f %t.capmod
// RUN: not capture-aot %s -o %t.capmod 2>&1 | FileCheck %s --implicit-check-not="see current operation"
// RUN: not test -e %t.capmod
// RUN: not capture-aot %S/Inputs/eager-complex.mlir -o %t.capmod 2>&1 | FileCheck %s --check-prefix=COMPLEX --implicit-check-not="see current operation"
// RUN: not test -e %t.capmod

// An element type ag does not hold is a verifier error at parse time,
// naming the type (an index tensor used to crash the verifier); nothing is
// written.

// CHECK: capture-aot-element-types.mlir:[[@LINE+1]]:1: error: 'ag.forward' op input #0 must be a statically shaped f32 or i32 tensor, but found 'tensor<2xindex>'
ag.forward @f(%x: tensor<2xindex> {ag.name = "x"}) -> () {
  ag.return
}

// COMPLEX: eager-complex.mlir:2:8: error: 'ag.eager' op result #0 has type 'tensor<2xcomplex<f32>>': expected a tensor of f32 (values), i32 (labels, row indices) or i8 (packed I/O bytes), but its element type is 'complex<f32>'
