func.func @huge(%in: memref<1024xi8>, %out: memref<1024xi8>) {
  %x = ag.binding <scratch, 0> : memref<4611686018427387904x4611686018427387904xf32>
  return
}
