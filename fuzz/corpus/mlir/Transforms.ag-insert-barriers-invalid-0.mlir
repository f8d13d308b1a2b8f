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
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>, %y : memref<64xf32>)
    return
  }
}
