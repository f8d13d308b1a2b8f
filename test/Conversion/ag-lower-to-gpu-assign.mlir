// RUN: capture-opt %s -ag-form-dispatch-regions -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -ag-insert-barriers -canonicalize -cse | FileCheck %s

// A compiled entry writes its assigned weights at its end: the soft
// update's region computes into scratch (kept live to the end), the output
// copy and the weight-to-weight copy read @t's old value, then a barrier,
// then the computed value is copied into @t.

ag.weight @p : tensor<8xf32> = dense<1.0>
ag.weight @t : tensor<8xf32> = dense<0.0>
ag.weight @h : tensor<8xf32> = dense<3.0>
ag.forward @soft(%tau: tensor<f32> {ag.name = "tau"}) -> (tensor<8xf32> {ag.name = "old"}) {
  %p = ag.read_weight @p : tensor<8xf32>
  %t = ag.read_weight @t : tensor<8xf32>
  %d = ag.sub %p, %t : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %s = ag.mul %d, %tau : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %new = ag.add %t, %s : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  ag.assign_weight @t, %new : tensor<8xf32>
  ag.assign_weight @h, %t : tensor<8xf32>
  ag.return %t : tensor<8xf32>
}

// CHECK-DAG: ag.weight @p {{.*}}#ag.place<weights, 0>
// CHECK-DAG: ag.weight @t {{.*}}#ag.place<weights, 256>
// CHECK-DAG: ag.weight @h {{.*}}#ag.place<weights, 512>
// CHECK-LABEL: func.func @soft
// CHECK: %[[NEW:.*]] = ag.binding <scratch, 0> : memref<2xvector<4xf32>>
// CHECK: gpu.launch_func @sub_mul_add_0::@sub_mul_add_0 {{.*}}, %[[NEW]] : memref<2xvector<4xf32>>)
// CHECK: %[[T:.*]] = ag.binding <weights, 256> : memref<8xf32>
// CHECK: gpu.launch_func @[[COPY:.*]]::@{{.*}} args(%[[T]] : memref<8xf32>, %{{.*}} : memref<8xf32>)
// CHECK-NEXT: %[[H:.*]] = ag.binding <weights, 512> : memref<8xf32>
// CHECK-NEXT: gpu.launch_func @[[COPY]]::@{{.*}} args(%[[T]] : memref<8xf32>, %[[H]] : memref<8xf32>)
// CHECK-NEXT: %[[NEW8:.*]] = ag.binding <scratch, 0> : memref<8xf32>
// CHECK-NEXT: ag.barrier
// CHECK-NEXT: gpu.launch_func @[[COPY]]::@{{.*}} args(%[[NEW8]] : memref<8xf32>, %[[T]] : memref<8xf32>)
// CHECK-NEXT: return
