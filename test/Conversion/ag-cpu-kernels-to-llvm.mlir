// RUN: capture-opt %s -split-input-file -ag-cpu-kernels-to-llvm | FileCheck %s

// The host kernels become LLVM code that calls nothing outside itself:
// exp and log (scalar and vec4) as polynomials, sqrt and abs as intrinsics
// the ISA has; memrefs are bare pointers. Each kernel becomes internal and
// gets the exported entry point capture_k_<kernel>(bindings, group, groups),
// which loads its binding pointers in order and calls it.

module {
  module @__ag_cpu_kernels {
    func.func @k(%x: memref<8xf32>, %v: memref<2xvector<4xf32>>, %g: index, %n: index) {
      %c0 = arith.constant 0 : index
      %a = memref.load %x[%g] : memref<8xf32>
      %e = math.exp %a : f32
      %l = math.log %e : f32
      %s = math.sqrt %l : f32
      %b = math.absf %s : f32
      memref.store %b, %x[%n] : memref<8xf32>
      %w = memref.load %v[%c0] : memref<2xvector<4xf32>>
      %ew = math.exp %w : vector<4xf32>
      memref.store %ew, %v[%c0] : memref<2xvector<4xf32>>
      return
    }
  }
}
// CHECK-LABEL: module @__ag_cpu_kernels
// CHECK:       llvm.func internal @k(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-NOT:   llvm.intr.exp
// CHECK-NOT:   llvm.intr.log
// CHECK-NOT:   llvm.call
// CHECK:       llvm.intr.sqrt
// CHECK:       llvm.intr.fabs
// CHECK:       llvm.func @capture_k_k(%[[B:.*]]: !llvm.ptr, %[[G:.*]]: i64, %[[N:.*]]: i64)
// CHECK-NEXT:    %[[P0:.*]] = llvm.getelementptr %[[B]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[P1:.*]] = llvm.getelementptr %[[B]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    llvm.call @k(%[[X]], %[[V]], %[[G]], %[[N]])
// CHECK-NEXT:    llvm.return
// No declaration of a library function is left.
// CHECK-NOT:   llvm.func @{{.*}}sym_visibility

// -----

// Without a host module there is nothing to do.

// CHECK-LABEL: func.func @untouched
// CHECK:       math.exp
func.func @untouched(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}
