// RUN: capture-opt %s -split-input-file -ag-bound-kernel-loops | FileCheck %s

// A loop of 100 iterations under a limit of 64: unrolled 4x (twice the
// overshoot, rounded up), 25 iterations; the kernel records both counts
// (the module writer keeps the second).

module attributes {gpu.container_module, ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 64>} {
  gpu.module @sum {
    // CHECK-LABEL: gpu.func @sum
    // CHECK-SAME: ag.loop_iterations = array<i64: 100, 25>
    // CHECK: %[[C4:.*]] = arith.constant 4 : index
    // CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C4]]
    // CHECK-COUNT-4: memref.load
    // CHECK-NOT: scf.for
    // CHECK: gpu.return
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

// -----

// Nested loops, 10 x 10: 10 * (1 + 10) = 110 iterations. The inner loop
// runs the most (100) and is unrolled 4x: two iterations and an epilogue
// of two per outer one, 10 * (1 + 2 + 2) = 50. The outer loop stays.

module attributes {gpu.container_module, ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 64>} {
  gpu.module @nest {
    // CHECK-LABEL: gpu.func @nest
    // CHECK-SAME: ag.loop_iterations = array<i64: 110, 50>
    // CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}}
    // CHECK: scf.for
    // CHECK-COUNT-4: memref.load
    // CHECK: scf.for
    // CHECK: memref.load
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

// -----

// Under the limit nothing changes: a grid-stride loop (start at the
// invocation's index, step gpu.grid_dim x 64) launched on 4 groups over
// 10000 items runs ceil(10000 / 256) = 40 times; a chunk [lo, min(lo + 16,
// n)) 16 times; a loop over the subgroups at most once per invocation of
// the launch's 64. 40 + 16 + 64 <= 120: recorded, for the loader.

module attributes {gpu.container_module, ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 120>} {
  gpu.module @fits {
    // CHECK-LABEL: gpu.func @fits
    // CHECK-SAME: ag.loop_iterations = array<i64: 120, 120>
    // CHECK: scf.for
    // CHECK: scf.for
    // CHECK: scf.for
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

// -----

// A target without a limit (the gpu preset's 0) leaves every loop alone;
// the bound is recorded all the same, so that the runtime can refuse the
// kernel on llvmpipe.

module attributes {gpu.container_module, ag.target = #ag.target<read_path = ssbo, subgroup_size = 32, max_texel_elements = 65536, max_loop_iterations = 0>} {
  gpu.module @gpu {
    // CHECK-LABEL: gpu.func @gpu
    // CHECK-SAME: ag.loop_iterations = array<i64: 100000, 100000>
    // CHECK: %[[C1:.*]] = arith.constant 1 : index
    // CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C1]]
    gpu.func @gpu(%in: memref<100000xf32>, %out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %cn = arith.constant 100000 : index
      %zero = arith.constant 0.0 : f32
      %s = scf.for %j = %c0 to %cn step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %in[%j] : memref<100000xf32>
        %n = arith.addf %acc, %x : f32
        scf.yield %n : f32
      }
      memref.store %s, %out[%c0] : memref<1xf32>
      gpu.return
    }
  }
}
