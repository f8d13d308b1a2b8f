module attributes {gpu.container_module, ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 64>} {
  gpu.module @open {
    gpu.func @open(%in: memref<100xf32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %n step %c1 {
        %x = memref.load %in[%i] : memref<100xf32>
        memref.store %x, %in[%i] : memref<100xf32>
      }
      gpu.return
    }
  }
}
