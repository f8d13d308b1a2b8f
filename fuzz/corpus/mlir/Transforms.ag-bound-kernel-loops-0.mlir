module attributes {gpu.container_module, ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 64>} {
  gpu.module @sum {
    gpu.func @sum(%in: memref<100xf32>, %out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c100 = arith.constant 100 : index
      %zero = arith.constant 0.0 : f32
      %s = scf.for %j = %c0 to %c100 step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %in[%j] : memref<100xf32>
        %n = arith.addf %acc, %x : f32
        scf.yield %n : f32
      }
      memref.store %s, %out[%c0] : memref<1xf32>
      gpu.return
    }
  }
}
