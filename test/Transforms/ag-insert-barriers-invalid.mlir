// RUN: capture-opt %s -split-input-file -ag-insert-barriers -verify-diagnostics -o /dev/null

// What ag-insert-barriers cannot read: a kernel argument that is not a
// view of a buffer, a view at a dynamic offset, a view of something other
// than a schedule argument or a global.


module attributes {gpu.container_module} {
  gpu.module @copy {
    gpu.func @copy(%a: memref<64xf32>, %b: memref<64xf32>) kernel {
      gpu.return
    }
  }
  func.func @not_a_view(%in: memref<64xf32>, %out: memref<1024xi8>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %y = memref.view %out[%c0][] : memref<1024xi8> to memref<64xf32>
    // expected-error @+1 {{'gpu.launch_func' op kernel argument #0 is not a memref.view of a buffer: ag-insert-barriers expects the schedule of ag-lower-to-gpu}}
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%in : memref<64xf32>, %y : memref<64xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @copy {
    gpu.func @copy(%a: memref<64xf32>, %b: memref<64xf32>) kernel {
      gpu.return
    }
  }
  func.func @dynamic(%in: memref<1024xi8>, %out: memref<1024xi8>, %at: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'memref.view' op needs a constant, non-negative byte shift for ag-insert-barriers}}
    %x = memref.view %in[%at][] : memref<1024xi8> to memref<64xf32>
    %y = memref.view %out[%c0][] : memref<1024xi8> to memref<64xf32>
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %y : memref<64xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @copy {
    gpu.func @copy(%a: memref<64xf32>, %b: memref<64xf32>) kernel {
      gpu.return
    }
  }
  func.func @alloc(%in: memref<1024xi8>, %out: memref<1024xi8>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.alloc() : memref<1024xi8>
    // expected-error @+1 {{'memref.view' op views a value that is neither a schedule argument nor a memref.get_global}}
    %x = memref.view %m[%c0][] : memref<1024xi8> to memref<64xf32>
    %y = memref.view %out[%c0][] : memref<1024xi8> to memref<64xf32>
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %y : memref<64xf32>)
    return
  }
}
