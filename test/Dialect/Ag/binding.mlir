// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s
// RUN: capture-opt %s -cse | FileCheck %s --check-prefix=CSE

// An ag.binding is a typed range of one of a schedule's buffers; two of the
// same range and type are one value after cse, different ones stay.

module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 512, optimizer = 0, constants = 0>} {
  // CHECK-LABEL: func.func @schedule
  // CSE-LABEL: func.func @schedule
  func.func @schedule(%in: memref<1024xi8>, %out: memref<512xi8>) -> (memref<64xf32>, memref<16xvector<4xf32>>, memref<2x2xi32>, memref<f32>, memref<64xf32>) {
    // CHECK: ag.binding <input, 768> : memref<64xf32>
    // CHECK: ag.binding <weights, 256> : memref<16xvector<4xf32>>
    // CHECK: ag.binding <output, 0> : memref<2x2xi32>
    // CHECK: ag.binding <scratch, 4096> : memref<f32>
    // CSE-COUNT-4: ag.binding
    // CSE-NOT: ag.binding
    %x = ag.binding <input, 768> : memref<64xf32>
    %w = ag.binding <weights, 256> : memref<16xvector<4xf32>>
    %y = ag.binding <output, 0> : memref<2x2xi32>
    %s = ag.binding <scratch, 4096> : memref<f32>
    %x2 = ag.binding <input, 768> : memref<64xf32>
    return %x, %w, %y, %s, %x2 : memref<64xf32>, memref<16xvector<4xf32>>, memref<2x2xi32>, memref<f32>, memref<64xf32>
  }
}
