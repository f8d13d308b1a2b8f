// RUN: capture-opt %s -split-input-file -ag-kernels-to-cpu | FileCheck %s
// RUN: capture-opt %s -split-input-file -ag-kernels-to-cpu -ag-kernels-to-cpu | FileCheck %s

// Each kernel becomes a host function running one workgroup: a loop over
// the local id per barrier-separated segment. Workgroup memory becomes an
// alloca of the function; the subgroup ops of one-invocation subgroups
// become their value, lane 0 and the local id; the group id and count are
// the last two arguments. A value crossing the barrier is kept per
// invocation (the loaded %v), or computed again when it is pure arithmetic
// of the local id and uniform values (%i). Running the pass twice changes
// nothing; the gpu.module stays.

#cpu = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>
module attributes {ag.target = #cpu, gpu.container_module} {
  // CHECK: gpu.module @sum
  gpu.module @sum {
    gpu.func @sum(%in: memref<256xf32>, %out: memref<2xf32>, %idx: memref<8xindex>) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [4, 1, 1]>} {
      %c4 = arith.constant 4 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %block = gpu.block_id x
      %tid = gpu.thread_id x
      %base = arith.muli %block, %c4 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %in[%i] : memref<256xf32>
      %own = gpu.subgroup_reduce add %v : (f32) -> f32
      %lane = gpu.lane_id
      %sg = gpu.subgroup_id : index
      %at = arith.addi %sg, %lane : index
      %shared = memref.alloc() : memref<4xf32, #spirv.storage_class<Workgroup>>
      memref.store %own, %shared[%at] : memref<4xf32, #spirv.storage_class<Workgroup>>
      gpu.barrier
      memref.store %i, %idx[%i] : memref<8xindex>
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %n = gpu.num_subgroups : index
        %t = scf.for %s = %c0 to %n step %c1 iter_args(%acc = %v) -> (f32) {
          %p = memref.load %shared[%s] : memref<4xf32, #spirv.storage_class<Workgroup>>
          %a = arith.addf %acc, %p : f32
          scf.yield %a : f32
        }
        memref.store %t, %out[%block] : memref<2xf32>
      }
      gpu.return
    }
  }
}
// CHECK-LABEL: module @__ag_cpu_kernels
// CHECK-LABEL: func.func @sum
// CHECK-SAME:    (%[[IN:.*]]: memref<256xf32>, %[[OUT:.*]]: memref<2xf32>, %[[IDX:.*]]: memref<8xindex>, %[[GROUP:.*]]: index, %[[GROUPS:.*]]: index)
// CHECK-DAG:     %[[V_SLOT:.*]] = memref.alloca() : memref<4xf32>
// CHECK-DAG:     %[[SHARED:.*]] = memref.alloca() : memref<4xf32>
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[BASE:.*]] = arith.muli %[[GROUP]], %{{.*}} : index
// CHECK:         scf.for %[[T0:.*]] = %{{.*}} to %[[WG:.*]] step
// CHECK-NEXT:      %[[I0:.*]] = arith.addi %[[BASE]], %[[T0]] : index
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[IN]][%[[I0]]]
// CHECK-NEXT:      %[[AT:.*]] = arith.addi %[[T0]], %{{.*}} : index
// CHECK-NEXT:      memref.store %[[V]], %[[SHARED]][%[[AT]]]
// CHECK-NEXT:      memref.store %[[V]], %[[V_SLOT]][%[[T0]]]
// CHECK-NEXT:    }
// CHECK-NOT:     gpu.barrier
// CHECK:         scf.for %[[T1:.*]] = %{{.*}} to %[[WG]] step
// CHECK-NEXT:      %[[I1:.*]] = arith.addi %[[BASE]], %[[T1]] : index
// CHECK-NEXT:      %[[V1:.*]] = memref.load %[[V_SLOT]][%[[T1]]]
// CHECK-NEXT:      memref.store %[[I1]], %[[IDX]][%[[I1]]]
// CHECK-NEXT:      %[[FIRST:.*]] = arith.cmpi eq, %[[T1]]
// CHECK-NEXT:      scf.if %[[FIRST]]
// CHECK-NEXT:        scf.for %{{.*}} = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%{{.*}} = %[[V1]])
// CHECK:               memref.load %[[SHARED]]
// CHECK:             memref.store %{{.*}}, %[[OUT]][%[[GROUP]]]
// CHECK:         return
// CHECK-NOT:   func.func @sum

// -----

// Without barriers: one loop. The grid's count and the workgroup's size
// have host values; y and z are the unit dimensions of a 1-D kernel.

#cpu = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>
module attributes {ag.target = #cpu, gpu.container_module} {
  gpu.module @fill {
    gpu.func @fill(%out: memref<64xindex>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      %groups = gpu.grid_dim x
      %size = gpu.block_dim x
      %tz = gpu.thread_id z
      %gy = gpu.block_id y
      %tid = gpu.thread_id x
      %a = arith.muli %groups, %size : index
      %b = arith.addi %a, %tz : index
      %c = arith.addi %b, %gy : index
      %d = arith.addi %c, %tid : index
      memref.store %d, %out[%tid] : memref<64xindex>
      gpu.return
    }
  }
}
// CHECK-LABEL: func.func @fill
// CHECK-SAME:    (%[[OUT:.*]]: memref<64xindex>, %{{.*}}: index, %[[GROUPS:.*]]: index)
// CHECK-DAG:     %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         %[[A:.*]] = arith.muli %[[GROUPS]], %[[EIGHT]]
// CHECK:         %[[B:.*]] = arith.addi %[[A]], %[[ZERO]]
// CHECK:         %[[C:.*]] = arith.addi %[[B]], %[[ZERO]]
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:      %[[D:.*]] = arith.addi %[[C]], %[[T]]
// CHECK-NEXT:      memref.store %[[D]], %[[OUT]][%[[T]]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return

// -----

// A module without kernels is left alone.

// CHECK-LABEL: func.func @no_kernels
// CHECK-NOT:   __ag_cpu_kernels
func.func @no_kernels() {
  return
}
