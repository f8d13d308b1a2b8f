module attributes {gpu.container_module} {
  memref.global "private" @scratch : memref<1024xi8>
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
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %c512 = arith.constant 512 : index
    %c1 = arith.constant 1 : index
    %s = memref.get_global @scratch : memref<1024xi8>
    %x = memref.view %in[%c0][] : memref<1024xi8> to memref<64xf32>
    %x2 = memref.view %in[%c256][] : memref<1024xi8> to memref<64xf32>
    %h = memref.view %s[%c0][] : memref<1024xi8> to memref<64xf32>
    %g = memref.view %s[%c256][] : memref<1024xi8> to memref<64xf32>
    %y = memref.view %out[%c0][] : memref<1024xi8> to memref<64xf32>
    %z = memref.view %out[%c512][] : memref<1024xi8> to memref<64xf32>
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %h : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x2 : memref<64xf32>, %g : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%h : memref<64xf32>, %y : memref<64xf32>)
    gpu.launch_func @first::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%h : memref<64xf32>, %x : memref<64xf32>)
    gpu.launch_func @first::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%g : memref<64xf32>, %g : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %z : memref<64xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x2 : memref<64xf32>, %g : memref<64xf32>)
    return
  }
}
