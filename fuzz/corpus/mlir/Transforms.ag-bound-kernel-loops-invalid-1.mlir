module attributes {gpu.container_module, ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 64>} {
  gpu.module @stride {
    gpu.func @stride(%in: memref<100000xf32>, %out: memref<100000xf32>) kernel {
      %c64 = arith.constant 64 : index
      %cn = arith.constant 100000 : index
      %thread = gpu.thread_id x
      %grid = gpu.grid_dim x
      %stride = arith.muli %grid, %c64 : index
      scf.for %i = %thread to %cn step %stride {
        %x = memref.load %in[%i] : memref<100000xf32>
        memref.store %x, %out[%i] : memref<100000xf32>
      }
      gpu.return
    }
  }
  func.func @schedule(%in: memref<100000xf32>, %out: memref<100000xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @stride::@stride blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1) args(%in : memref<100000xf32>, %out : memref<100000xf32>)
    return
  }
}
