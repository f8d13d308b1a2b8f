// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -canonicalize -cse | FileCheck %s

// A workgroup region's kernel: one workgroup of the target's subgroup_size
// (8) invocations. A full reduction (here an mse, then a mean) is shared by
// all of them: each adds a strided share, a subgroup reduction adds the
// subgroup's shares, each subgroup's first invocation leaves its total in
// workgroup memory and, after a barrier, invocation 0 adds the subgroups'
// totals (any subgroup size the device has) and stores the result. A
// reduction along an axis keeps one output element per invocation. Every
// stage ends with a barrier.

ag.forward @head(%z: tensor<10x3xf32> {ag.name = "z"}, %t: tensor<10x3xf32> {ag.name = "t"})
    -> (tensor<f32> {ag.name = "l"}, tensor<f32> {ag.name = "m"}, tensor<10xf32> {ag.name = "rows"}) {
  %l, %m, %r = ag.workgroup_region ins(%z, %t : tensor<10x3xf32>, tensor<10x3xf32>) -> (tensor<f32>, tensor<f32>, tensor<10xf32>) {
  ^bb0(%a: tensor<10x3xf32>, %b: tensor<10x3xf32>):
    %0 = ag.mse %a, %b : (tensor<10x3xf32>, tensor<10x3xf32>) -> tensor<f32>
    %1 = ag.mul %a, %0 : (tensor<10x3xf32>, tensor<f32>) -> tensor<10x3xf32>
    %2 = ag.mean %1 : tensor<10x3xf32> -> tensor<f32>
    %3 = ag.sum %1 axis = 1 : tensor<10x3xf32> -> tensor<10xf32>
    ag.yield %0, %2, %3 : tensor<f32>, tensor<f32>, tensor<10xf32>
  }
  ag.return %l, %m, %r : tensor<f32>, tensor<f32>, tensor<10xf32>
}

// CHECK-LABEL: func.func @head
// CHECK: gpu.launch_func @[[K:workgroup_[a-z0-9_]+]]::@[[K]] blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
// CHECK-NOT: gpu.launch_func

// CHECK: gpu.func @[[K]](%{{.*}}: memref<10x3xf32>, %{{.*}}: memref<10x3xf32>, %[[L:.*]]: memref<f32>, %[[M:.*]]: memref<f32>, %[[ROWS:.*]]: memref<10xf32>)
// CHECK-SAME: workgroup_size = [8, 1, 1]
// One workgroup of 8 invocations runs the 8 lanes: no loop, no guard.
// CHECK-NOT: scf.
// CHECK: %[[T:.*]] = arith.addi
// CHECK-NOT: scf.
// CHECK: %[[PART:.*]] = memref.alloc() : memref<8xf32, #spirv.storage_class<Workgroup>>
// The mse: a strided share of the 30 squared differences per invocation,
// over 32 so that every invocation runs at least once (a loop result is
// undefined in SPIR-V after zero iterations), the last two masked.
// CHECK: %[[SHARE:.*]] = scf.for %[[E:.*]] = %[[T]] to %c32 step %c8 iter_args
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[E]], %c30
// CHECK: arith.subf
// CHECK: %[[SQ:.*]] = arith.mulf
// CHECK: arith.select %[[IN]], %[[SQ]], %{{.*}} : f32
// CHECK: %[[SG:.*]] = gpu.subgroup_reduce add %[[SHARE]] : (f32) -> f32
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: %[[SGID:.*]] = gpu.subgroup_id : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: scf.if %[[FIRST]]
// CHECK: memref.store %[[SG]], %[[PART]][%[[SGID]]]
// CHECK: gpu.barrier
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK: scf.if %[[ZERO]]
// CHECK: %[[N:.*]] = gpu.num_subgroups : index
// CHECK: scf.for %{{.*}} = %c0 to %[[N]] step %c1 iter_args
// CHECK: memref.load %[[PART]]
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %[[L]][]
// CHECK: gpu.barrier
// The mean reads the stored mse.
// CHECK: scf.for %{{.*}} = %[[T]] to %c32 step %c8 iter_args
// CHECK: memref.load %[[L]][]
// CHECK: gpu.subgroup_reduce add
// CHECK: memref.store %{{.*}}, %[[M]][]
// CHECK: gpu.barrier
// The row sums: one row per invocation, no subgroup reduction.
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: scf.for %{{.*}} = %[[T]] to %c10 step %c8
// CHECK: memref.store %{{.*}}, %[[ROWS]][
// CHECK: gpu.barrier
// CHECK: gpu.return
