func.func @negative(%in: memref<1024xi8>, %out: memref<1024xi8>) {
  %x = ag.binding <input, -256> : memref<4xf32>
  return
}
