module attributes {gpu.container_module} {
  gpu.module @copy {
    gpu.func @copy(%a: memref<64xf32>, %b: memref<64xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @first {
    gpu.func @first(%a: memref<64xf32>, %b: memref<64xf32>) kernel attributes {ag.writes = array<i32: 0>} {
      gpu.return
    }
  }
  func.func @schedule(%in: memref<1024xi8>, %out: memref<1024xi8>) {
    %c1 = arith.constant 1 : index
    %x = ag.binding <input, 0> : memref<64xf32>
    %x2 = ag.binding <input, 256> : memref<64xf32>
    %h = ag.binding <scratch, 0> : memref<64xf32>
    %g = ag.binding <scratch, 256> : memref<64xf32>
    %y = ag.binding <output, 0> : memref<64xf32>
    %z = ag.binding <output, 512> : memref<64xf32>
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %h : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x2 : memref<64xf32>, %g : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%h : memref<64xf32>, %y : memref<64xf32>)
    gpu.launch_func @first::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%h : memref<64xf32>, %x : memref<64xf32>)
    gpu.launch_func @first::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : memref<64xf32>, %g : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %z : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x2 : memref<64xf32>, %g : memref<64xf32>)
    return
  }

  func.func @buffers(%in: memref<1024xi8>, %out: memref<1024xi8>) {
    %c1 = arith.constant 1 : index
    %x = ag.binding <input, 0> : memref<64xf32>
    %h = ag.binding <scratch, 0> : memref<64xf32>
    %y = ag.binding <output, 0> : memref<64xf32>
    %w = ag.binding <weights, 0> : memref<64xf32>
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %h : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %y : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<64xf32>, %w : memref<64xf32>)
    return
  }
}
