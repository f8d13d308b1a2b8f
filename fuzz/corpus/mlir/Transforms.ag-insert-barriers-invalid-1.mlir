module attributes {gpu.container_module} {
  gpu.module @first {
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
