func.func @layout(%in: memref<1024xi8>, %out: memref<1024xi8>) {
  %x = ag.binding <input, 0> : memref<4x4xf32, strided<[8, 1]>>
  return
}
