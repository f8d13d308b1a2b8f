func.func @past_input(%in: memref<1024xi8>, %out: memref<1024xi8>) {
  %x = ag.binding <input, 256> : memref<256xf32>
  return
}
