// RUN: capture-opt %s -split-input-file -ag-bound-kernel-loops=max-ops=60 -verify-diagnostics

// Fitting 1000 iterations under 4 would take the whole loop unrolled,
// past max-ops: an error at the kernel's launch.

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
    // expected-error @+1 {{kernel 'big' runs up to 1000 loop iterations in one invocation, more than the target's 4 (llvmpipe ends an invocation's loops there, silently), and unrolling its loops to fit would grow it past 60 operations (max-ops)}}
    gpu.launch_func @big::@big blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%in : memref<1000xf32>, %out : memref<1xf32>)
    return
  }
}

// -----

// A grid-stride loop of 4 groups of 64 invocations over 100000 items runs
// 391 times per invocation, past the limit of 64; its step depends on the
// grid, so it has no constant trip count to unroll by.

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
    // expected-error @+1 {{kernel 'stride' runs up to 391 loop iterations in one invocation, more than the target's 64 (llvmpipe ends an invocation's loops there, silently), and none of its loops has constant bounds to unroll}}
    gpu.launch_func @stride::@stride blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1) args(%in : memref<100000xf32>, %out : memref<100000xf32>)
    return
  }
}

// -----

// A loop bound by a value the compiler cannot bound (an argument), on a
// kernel nothing launches: the error is at the kernel.

module attributes {gpu.container_module, ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 64>} {
  gpu.module @open {
    // expected-error @+1 {{kernel 'open' has a loop whose trip count the compiler cannot bound, so it cannot keep the kernel under the target's 64 loop iterations per invocation (llvmpipe ends an invocation's loops there, silently)}}
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
