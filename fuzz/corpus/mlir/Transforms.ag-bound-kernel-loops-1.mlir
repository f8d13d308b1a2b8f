module attributes {gpu.container_module, ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 64>} {
  gpu.module @nest {
    gpu.func @nest(%in: memref<10x10xf32>, %out: memref<10xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c10 = arith.constant 10 : index
      %zero = arith.constant 0.0 : f32
      scf.for %i = %c0 to %c10 step %c1 {
        %s = scf.for %j = %c0 to %c10 step %c1 iter_args(%acc = %zero) -> (f32) {
          %x = memref.load %in[%i, %j] : memref<10x10xf32>
          %n = arith.addf %acc, %x : f32
          scf.yield %n : f32
        }
        memref.store %s, %out[%i] : memref<10xf32>
      }
      gpu.return
    }
  }
}
