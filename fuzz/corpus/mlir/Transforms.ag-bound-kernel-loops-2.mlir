module attributes {gpu.container_module, ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 120>} {
  gpu.module @fits {
    gpu.func @fits(%in: memref<10000xf32>, %out: memref<10000xf32>, %n: index) kernel {
      %c16 = arith.constant 16 : index
      %c64 = arith.constant 64 : index
      %c10000 = arith.constant 10000 : index
      %block = gpu.block_id x
      %thread = gpu.thread_id x
      %base = arith.muli %block, %c64 : index
      %start = arith.addi %base, %thread : index
      %grid = gpu.grid_dim x
      %stride = arith.muli %grid, %c64 : index
      scf.for %i = %start to %c10000 step %stride {
        %x = memref.load %in[%i] : memref<10000xf32>
        memref.store %x, %out[%i] : memref<10000xf32>
      }
      %c1 = arith.constant 1 : index
      %lo = arith.muli %thread, %c16 : index
      %end = arith.addi %lo, %c16 : index
      %hi = arith.minsi %end, %n : index
      scf.for %j = %lo to %hi step %c1 {
        %x = memref.load %in[%j] : memref<10000xf32>
        memref.store %x, %out[%j] : memref<10000xf32>
      }
      %c0 = arith.constant 0 : index
      %subgroups = gpu.num_subgroups : index
      scf.for %k = %c0 to %subgroups step %c1 {
        %x = memref.load %in[%k] : memref<10000xf32>
        memref.store %x, %out[%k] : memref<10000xf32>
      }
      gpu.return
    }
  }
  func.func @schedule(%in: memref<10000xf32>, %out: memref<10000xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @fits::@fits blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1) args(%in : memref<10000xf32>, %out : memref<10000xf32>, %n : index)
    return
  }
}
