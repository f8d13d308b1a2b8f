// RUN: capture-opt %s -split-input-file -ag-kernels-to-cpu -verify-diagnostics

// Kernels shaped for 8-lane subgroups run their lanes together, which one
// invocation after another cannot.
// expected-error @+1 {{ag-kernels-to-cpu: the kernels must be shaped for subgroups of one invocation (the cpu target), got #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 134217728, max_loop_iterations = 65535>}}
module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 134217728, max_loop_iterations = 65535>, gpu.container_module} {
  gpu.module @k {
    gpu.func @k() kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// expected-error @+1 {{ag-kernels-to-cpu: the kernels must be shaped for subgroups of one invocation (the cpu target), got <<NULL ATTRIBUTE>>}}
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k() kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      gpu.return
    }
  }
}

// -----

#cpu = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>
module attributes {ag.target = #cpu, gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{ag-kernels-to-cpu: kernel 'k' has no workgroup size (expected a spirv.entry_point_abi or known_block_size)}}
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

#cpu = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>
module attributes {ag.target = #cpu, gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{ag-kernels-to-cpu: kernel 'k' must have a 1-D workgroup [N, 1, 1] with N >= 1, got [8, 2, 1]}}
    gpu.func @k() kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 2, 1]>} {
      gpu.return
    }
  }
}

// -----

#cpu = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>
module attributes {ag.target = #cpu, gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{ag-kernels-to-cpu: kernel 'k' declares memory attributions; expected workgroup memory as memref.alloc in #spirv.storage_class<Workgroup>}}
    gpu.func @k() workgroup(%w: memref<8xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      gpu.return
    }
  }
}

// -----

#cpu = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>
module attributes {ag.target = #cpu, gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{ag-kernels-to-cpu: kernel 'k' must have one block (structured control flow), got 2}}
    gpu.func @k() kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      cf.br ^next
    ^next:
      gpu.return
    }
  }
}

// -----

// A barrier that only some invocations reach, or reach several times, is
// not a split between two loops over all of them.
#cpu = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>
module attributes {ag.target = #cpu, gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      scf.if %flag {
        // expected-error @+1 {{'gpu.barrier' op inside 'scf.if' cannot be split into workgroup loops in ag-kernels-to-cpu (kernel 'k'): barriers must be at the kernel's top level}}
        gpu.barrier
      }
      gpu.return
    }
  }
}

// -----

#cpu = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>
module attributes {ag.target = #cpu, gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%v: f32, %out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      %c1 = arith.constant 1 : i32
      %c8 = arith.constant 8 : i32
      // expected-error @+1 {{'gpu.shuffle' op has no host form in ag-kernels-to-cpu (expected the kernels of the cpu target: ids, sizes, barriers and reductions over one-invocation subgroups)}}
      %s, %ok = gpu.shuffle xor %v, %c1, %c8 : f32
      gpu.return
    }
  }
}

// -----

#cpu = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>
module attributes {ag.target = #cpu, gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      scf.if %flag {
        // expected-error @+1 {{'memref.alloc' op in ag-kernels-to-cpu must be static workgroup memory (#spirv.storage_class<Workgroup>) at the kernel's top level, got 'memref<8xf32, #spirv.storage_class<Workgroup>>'}}
        %w = memref.alloc() : memref<8xf32, #spirv.storage_class<Workgroup>>
      }
      gpu.return
    }
  }
}

// -----

#cpu = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>
module attributes {ag.target = #cpu, gpu.container_module} {
  gpu.module @k {
    gpu.func @k() kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      // expected-error @+1 {{'memref.alloc' op in ag-kernels-to-cpu must be static workgroup memory (#spirv.storage_class<Workgroup>) at the kernel's top level, got 'memref<8xf32>'}}
      %w = memref.alloc() : memref<8xf32>
      gpu.return
    }
  }
}

// -----

// A value that cannot be kept in a memref (here a memref whose size is the
// local id) and is used after a barrier.
#cpu = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>
module attributes {ag.target = #cpu, gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%v: f32) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      %c0 = arith.constant 0 : index
      %tid = gpu.thread_id x
      // expected-error @+1 {{'memref.alloca' op result is used after a barrier, and ag-kernels-to-cpu keeps such values per invocation only as scalars or vectors, got 'memref<?xf32>' (kernel 'k')}}
      %m = memref.alloca(%tid) : memref<?xf32>
      gpu.barrier
      memref.store %v, %m[%c0] : memref<?xf32>
      gpu.return
    }
  }
}
