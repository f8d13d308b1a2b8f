module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 512, optimizer = 0, constants = 0>} {
  func.func @unaligned(%in: memref<1024xi8>, %out: memref<1024xi8>) {
    %x = ag.binding <scratch, 128> : memref<4xf32>
    return
  }
}
