func.func @element(%in: memref<1024xi8>, %out: memref<1024xi8>) {
  %x = ag.binding <input, 0> : memref<4xi1>
  return
}
