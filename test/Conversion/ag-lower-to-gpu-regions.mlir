// RUN: capture-opt %s -ag-pack-io -ag-form-dispatch-regions -ag-plan-buffers -ag-lower-to-gpu -canonicalize -cse | FileCheck %s

// The elementwise region template binds each input by how it is read:
// vec4 elements for an input of the result's shape or a trailing block of
// it (a bias row) whose size is a multiple of 4; its tensor's f32 memref
// for a single element (loaded once) or any other broadcast (per element).
// The result is a flat vec4 array stored one vec4 per work item, or with a
// tail a flat f32 array stored per element. Two regions with the same body over other
// values share one kernel; kernels are named after the ops they fused.

ag.forward @f(%x: tensor<6x8xf32> {ag.name = "x"}, %row: tensor<8xf32> {ag.name = "row"},
              %col: tensor<6x1xf32> {ag.name = "col"}, %s: tensor<f32> {ag.name = "s"},
              %y: tensor<6x8xf32> {ag.name = "y"}, %t: tensor<7xf32> {ag.name = "t"})
    -> (tensor<6x8xf32> {ag.name = "a"}, tensor<6x8xf32> {ag.name = "b"}, tensor<7xf32> {ag.name = "c"}) {
  %0 = ag.add %x, %row : (tensor<6x8xf32>, tensor<8xf32>) -> tensor<6x8xf32>
  %1 = ag.mul %0, %col : (tensor<6x8xf32>, tensor<6x1xf32>) -> tensor<6x8xf32>
  %2 = ag.sub %1, %s : (tensor<6x8xf32>, tensor<f32>) -> tensor<6x8xf32>
  %3 = ag.tanh %2 : tensor<6x8xf32>
  %4 = ag.add %y, %row : (tensor<6x8xf32>, tensor<8xf32>) -> tensor<6x8xf32>
  %5 = ag.mul %4, %col : (tensor<6x8xf32>, tensor<6x1xf32>) -> tensor<6x8xf32>
  %6 = ag.sub %5, %s : (tensor<6x8xf32>, tensor<f32>) -> tensor<6x8xf32>
  %7 = ag.tanh %6 : tensor<6x8xf32>
  %8 = ag.exp %t : tensor<7xf32>
  ag.return %3, %7, %8 : tensor<6x8xf32>, tensor<6x8xf32>, tensor<7xf32>
}

// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @[[K:add_mul_sub_tanh_[0-9]+]]::@[[K]] blocks in ({{.*}}) threads in ({{.*}}) args({{.*}} : memref<12xvector<4xf32>>, {{.*}} : memref<2xvector<4xf32>>, {{.*}} : memref<6x1xf32>, {{.*}} : memref<f32>, {{.*}} : memref<12xvector<4xf32>>)
// CHECK: gpu.launch_func @[[K]]::@[[K]]
// CHECK: gpu.launch_func @[[E:exp_[0-9]+]]::@[[E]] {{.*}} args({{.*}} : memref<2xvector<4xf32>>, {{.*}} : memref<7xf32>)

// 48 elements: 12 work items of 4, no tail.
// CHECK: gpu.func @[[K]](%[[X:.*]]: memref<12xvector<4xf32>>, %[[ROW:.*]]: memref<2xvector<4xf32>>, %[[COL:.*]]: memref<6x1xf32>, %[[S:.*]]: memref<f32>, %[[OUT:.*]]: memref<12xvector<4xf32>>)
// CHECK-SAME: ag.binding_shapes = [array<i64: 6, 8>, array<i64: 8>, array<i64: 6, 1>, array<i64>, array<i64: 6, 8>]
// CHECK: %[[IIN:.*]] = arith.cmpi ult, %[[I:.*]], %c12
// CHECK: scf.if %[[IIN]]
// CHECK: memref.load %[[X]][%[[I]]] : memref<12xvector<4xf32>>
// The bias row repeats every 2 vectors.
// CHECK: %[[R:.*]] = arith.remui %[[I]], %c2
// CHECK: memref.load %[[ROW]][%[[R]]] : memref<2xvector<4xf32>>
// CHECK: memref.load %[[COL]]
// CHECK: memref.load %[[S]][] : memref<f32>
// CHECK-NOT: scf.if
// CHECK: %[[V:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: memref.store %[[V]], %[[OUT]][%[[I]]] : memref<12xvector<4xf32>>
// CHECK-NOT: memref.store
// CHECK-NOT: gpu.func @add_mul_sub

// 7 elements: 2 work items, the last one's 3 lanes past the end store nothing.
// CHECK: gpu.func @[[E]](%[[T:.*]]: memref<2xvector<4xf32>>, %[[EOUT:.*]]: memref<7xf32>)
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c2
// CHECK: scf.if %[[IN]]
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[EOUT]]
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[EOUT]]
