// RUN: capture-opt %s -ag-pack-io -ag-form-dispatch-regions -ag-configure-kernels -ag-plan-buffers -ag-lower-to-gpu -canonicalize -cse | FileCheck %s

// A full reduction of more than 4096 elements runs in two passes. The first
// reads vec4s when every input has the reduced shape (or one element):
// partials of 256 elements (64 vec4s) each, the last one ending in the
// tail's lanes, combined in element order. An input that broadcasts (the
// bias row of w + r) keeps the per-element loads.

ag.forward @f(%x: tensor<10002xf32> {ag.name = "x"}, %w: tensor<300x37xf32> {ag.name = "w"},
              %r: tensor<37xf32> {ag.name = "r"})
    -> (tensor<f32> {ag.name = "s"}, tensor<f32> {ag.name = "t"}) {
  %s = ag.sum %x : tensor<10002xf32> -> tensor<f32>
  %a = ag.add %w, %r : (tensor<300x37xf32>, tensor<37xf32>) -> tensor<300x37xf32>
  %t = ag.sum %a : tensor<300x37xf32> -> tensor<f32>
  ag.return %s, %t : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @[[SP:sum_partial_[0-9]+]]::@[[SP]] {{.*}} args(%{{.*}} : memref<2501xvector<4xf32>>, %[[P:.*]] : memref<40xf32>)
// CHECK: gpu.launch_func @{{sum_final_[0-9]+}}::{{.*}} args(%[[P]] : memref<40xf32>, %{{.*}} : memref<f32>)
// CHECK: gpu.launch_func @[[AP:add_sum_partial_[0-9]+]]::@[[AP]] {{.*}} args(%{{.*}} : memref<300x37xf32>, %{{.*}} : memref<37xf32>, %{{.*}} : memref<44xf32>)

// 10002 elements: 40 partials; vec4s 64 i .. min(64 i + 64, 2500), then
// partial 39 adds elements 10000 and 10001 (lanes 0 and 1 of vec4 2500).
// CHECK: gpu.func @[[SP]](%[[X:.*]]: memref<2501xvector<4xf32>>, %[[OUT:.*]]: memref<40xf32>)
// CHECK-SAME: ag.binding_shapes = [array<i64: 10002>, array<i64: 40>]
// CHECK: %[[I:.*]] = arith.addi %{{.*}}, %thread_id_x
// CHECK: %[[LO:.*]] = arith.muli %[[I]], %c64 : index
// CHECK: %[[END:.*]] = arith.addi %[[LO]], %c64
// CHECK: %[[HI:.*]] = arith.minsi %[[END]], %c2500
// CHECK: %[[SUM:.*]] = scf.for %[[V:.*]] = %[[LO]] to %[[HI]] step %c1 iter_args(%[[ACC:.*]] = %cst) -> (f32)
// CHECK-NEXT: %[[X4:.*]] = memref.load %[[X]][%[[V]]] : memref<2501xvector<4xf32>>
// CHECK-NEXT: %[[L0:.*]] = vector.extract %[[X4]][0]
// CHECK-NEXT: %[[L1:.*]] = vector.extract %[[X4]][1]
// CHECK-NEXT: %[[L2:.*]] = vector.extract %[[X4]][2]
// CHECK-NEXT: %[[L3:.*]] = vector.extract %[[X4]][3]
// CHECK-NEXT: %[[A0:.*]] = arith.addf %[[ACC]], %[[L0]]
// CHECK-NEXT: %[[A1:.*]] = arith.addf %[[A0]], %[[L1]]
// CHECK-NEXT: %[[A2:.*]] = arith.addf %[[A1]], %[[L2]]
// CHECK-NEXT: %[[A3:.*]] = arith.addf %[[A2]], %[[L3]]
// CHECK-NEXT: scf.yield %[[A3]]
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[I]], %c39
// CHECK: %[[TOTAL:.*]] = scf.if %[[LAST]] -> (f32)
// CHECK-NEXT: %[[T4:.*]] = memref.load %[[X]][%c2500]
// CHECK-NEXT: %[[T0:.*]] = vector.extract %[[T4]][0]
// CHECK-NEXT: %[[T1:.*]] = vector.extract %[[T4]][1]
// CHECK-NEXT: %[[B0:.*]] = arith.addf %[[SUM]], %[[T0]]
// CHECK-NEXT: %[[B1:.*]] = arith.addf %[[B0]], %[[T1]]
// CHECK-NEXT: scf.yield %[[B1]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[SUM]]
// CHECK: memref.store %[[TOTAL]], %[[OUT]][%[[I]]] : memref<40xf32>

// The broadcast region: 11100 elements, 44 partials, per-element loads.
// CHECK: gpu.func @[[AP]](%[[W:.*]]: memref<300x37xf32>, %[[R:.*]]: memref<37xf32>, %{{.*}}: memref<44xf32>)
// CHECK: scf.for
// CHECK: memref.load %[[W]][%{{.*}}, %{{.*}}] : memref<300x37xf32>
// CHECK: memref.load %[[R]][%{{.*}}] : memref<37xf32>
