// RUN: capture-opt %s -split-input-file -ag-insert-barriers -verify-diagnostics -o /dev/null

// What ag-insert-barriers cannot read: a kernel argument that is not an
// ag.binding (a view it would have to follow back to a buffer), a kernel
// whose ag.writes names an argument its launch does not pass.

module attributes {gpu.container_module} {
  gpu.module @copy {
    gpu.func @copy(%a: memref<64xf32>, %b: memref<64xf32>) kernel {
      gpu.return
    }
  }
  func.func @not_a_binding(%in: memref<1024xi8>, %out: memref<1024xi8>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = memref.view %in[%c0][] : memref<1024xi8> to memref<64xf32>
    %y = ag.binding <output, 0> : memref<64xf32>
    // expected-error @+1 {{'gpu.launch_func' op kernel argument #0 is not an ag.binding (a typed range of a buffer): expected a schedule of ag-lower-to-gpu}}
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %y : memref<64xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @first {
    // expected-error @+1 {{'gpu.func' op writes argument #2 ('ag.writes'), but it is launched with 2 arguments}}
    gpu.func @first(%a: memref<64xf32>, %b: memref<64xf32>) kernel attributes {ag.writes = array<i32: 2>} {
      gpu.return
    }
  }
  func.func @writes(%in: memref<1024xi8>, %out: memref<1024xi8>) {
    %c1 = arith.constant 1 : index
    %x = ag.binding <input, 0> : memref<64xf32>
    %y = ag.binding <output, 0> : memref<64xf32>
    gpu.launch_func @first::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %y : memref<64xf32>)
    return
  }
}
