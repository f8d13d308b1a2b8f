module attributes {gpu.container_module, ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 4>} {
  gpu.module @big {
    gpu.func @big(%in: memref<1000xf32>, %out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %cn = arith.constant 1000 : index
      %zero = arith.constant 0.0 : f32
      %s = scf.for %j = %c0 to %cn step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %in[%j] : memref<1000xf32>
        %n = arith.addf %acc, %x : f32
        scf.yield %n : f32
      }
      memref.store %s, %out[%c0] : memref<1xf32>
      gpu.return
    }
  }
  func.func @schedule(%in: memref<1000xf32>, %out: memref<1xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @big::@big blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%in : memref<1000xf32>, %out : memref<1xf32>)
    return
  }
}
