// RUN: capture-opt %s -ag-insert-barriers | FileCheck %s
// RUN: capture-opt %s -ag-insert-barriers -ag-insert-barriers | FileCheck %s

// A barrier exactly where a launch would otherwise read what a launch
// since the last barrier writes (RAW), write what one reads (WAR) or write
// what one writes (WAW); none between independent launches, none for a
// launch that reads and writes its own range; ag.writes names what a
// kernel writes (else its last argument); ranges are the ag.bindings'
// (buffer, offset, bytes). Running the pass twice changes nothing.

module attributes {gpu.container_module} {
  gpu.module @copy {
    gpu.func @copy(%a: memref<64xf32>, %b: memref<64xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @first {
    // Writes its first argument, reads the second.
    gpu.func @first(%a: memref<64xf32>, %b: memref<64xf32>) kernel attributes {ag.writes = array<i32: 0>} {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @schedule
  func.func @schedule(%in: memref<1024xi8>, %out: memref<1024xi8>) {
    %c1 = arith.constant 1 : index
    %x = ag.binding <input, 0> : memref<64xf32>
    %x2 = ag.binding <input, 256> : memref<64xf32>
    %h = ag.binding <scratch, 0> : memref<64xf32>
    %g = ag.binding <scratch, 256> : memref<64xf32>
    %y = ag.binding <output, 0> : memref<64xf32>
    %z = ag.binding <output, 512> : memref<64xf32>
    // Two independent writes: no barrier between them.
    // CHECK: gpu.launch_func @copy::@copy {{.*}} args(%[[X:.*]] : memref<64xf32>, %[[H:.*]] : memref<64xf32>)
    // CHECK-NEXT: gpu.launch_func @copy::@copy
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %h : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x2 : memref<64xf32>, %g : memref<64xf32>)
    // RAW on %h.
    // CHECK-NEXT: ag.barrier
    // CHECK-NEXT: gpu.launch_func @copy::@copy
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%h : memref<64xf32>, %y : memref<64xf32>)
    // WAR: @first writes %h, which the launch above read.
    // CHECK-NEXT: ag.barrier
    // CHECK-NEXT: gpu.launch_func @first::@first
    gpu.launch_func @first::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%h : memref<64xf32>, %x : memref<64xf32>)
    // In place (reads and writes %g itself): nothing since the barrier
    // touches %g, so no barrier.
    // CHECK-NEXT: gpu.launch_func @first::@first
    gpu.launch_func @first::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : memref<64xf32>, %g : memref<64xf32>)
    // A write of a range nothing since the barrier touched (%z): no
    // barrier; then a second write of %g, which the in-place launch
    // wrote: WAW.
    // CHECK-NEXT: gpu.launch_func @copy::@copy
    // CHECK-NEXT: ag.barrier
    // CHECK-NEXT: gpu.launch_func @copy::@copy
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %z : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x2 : memref<64xf32>, %g : memref<64xf32>)
    // CHECK-NEXT: return
    return
  }

  // The same bytes of different buffers do not conflict (scratch and
  // output at 0); the same bytes of one buffer do (a read of output 0
  // after a write of it).
  // CHECK-LABEL: func.func @buffers
  func.func @buffers(%in: memref<1024xi8>, %out: memref<1024xi8>) {
    %c1 = arith.constant 1 : index
    %x = ag.binding <input, 0> : memref<64xf32>
    %h = ag.binding <scratch, 0> : memref<64xf32>
    %y = ag.binding <output, 0> : memref<64xf32>
    %w = ag.binding <weights, 0> : memref<64xf32>
    // CHECK: gpu.launch_func @copy::@copy {{.*}} args(%[[X:.*]] : memref<64xf32>, %[[H:.*]] : memref<64xf32>)
    // CHECK-NEXT: gpu.launch_func @copy::@copy {{.*}} args(%[[X]] : memref<64xf32>, %[[Y:.*]] : memref<64xf32>)
    // CHECK-NEXT: ag.barrier
    // CHECK-NEXT: gpu.launch_func @copy::@copy {{.*}} args(%[[Y]] : memref<64xf32>, %[[W:.*]] : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %h : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %y : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<64xf32>, %w : memref<64xf32>)
    return
  }
}
