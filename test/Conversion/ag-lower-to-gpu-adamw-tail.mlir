// RUN: capture-opt %s -ag-autodiff -canonicalize -ag-pack-params -ag-insert-clip-scale -ag-split-update -canonicalize -cse -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -canonicalize | FileCheck %s

// AdamW over a pack of 6 floats (not a multiple of 4): two vec4s, each
// array written one vec4 per store. The second vector's lanes 2 and 3 lie
// in the pack's padding: they store back the bits they read, so the
// written bindings declare 8 floats, and no byte outside the pack's
// 16-byte-rounded slot is touched.

// CHECK-LABEL: gpu.func @adamw_{{[0-9]+}}
// CHECK-SAME: %[[RP:[^:]*]]: memref<2xvector<4xf32>>, %[[RM:[^:]*]]: memref<2xvector<4xf32>>, %[[RV:[^:]*]]: memref<2xvector<4xf32>>, %[[WP:[^:]*]]: memref<2xvector<4xf32>>, %[[WM:[^:]*]]: memref<2xvector<4xf32>>, %[[WV:[^:]*]]: memref<2xvector<4xf32>>) kernel
// CHECK-SAME: ag.binding_shapes = [array<i64: 6>, array<i64>, array<i64: 7>, array<i64: 6>, array<i64: 6>, array<i64: 6>, array<i64: 8>, array<i64: 8>, array<i64: 8>]
// A vector's parameters and moments, and their lane 2 (every vector has
// the same code; only the last one's lanes 2 and 3 are past the pack).
// CHECK: %[[P4:.*]] = memref.load %[[RP]]
// CHECK-NEXT: %[[M4:.*]] = memref.load %[[RM]]
// CHECK-NEXT: %[[V4:.*]] = memref.load %[[RV]]
// CHECK: %[[P2:.*]] = vector.extract %[[P4]][2] : f32 from vector<4xf32>
// CHECK-NEXT: %[[M2:.*]] = vector.extract %[[M4]][2] : f32 from vector<4xf32>
// CHECK-NEXT: %[[V2:.*]] = vector.extract %[[V4]][2] : f32 from vector<4xf32>
// CHECK: %[[IN2:.*]] = arith.cmpi ult, %{{.*}}, %c6 : index
// CHECK-NEXT: %[[NP2:.*]] = arith.select %[[IN2]], %{{.*}}, %[[P2]] : f32
// CHECK-NEXT: %[[NM2:.*]] = arith.select %[[IN2]], %{{.*}}, %[[M2]] : f32
// CHECK-NEXT: %[[NV2:.*]] = arith.select %[[IN2]], %{{.*}}, %[[V2]] : f32
// CHECK: %[[IN3:.*]] = arith.cmpi ult, %{{.*}}, %c6 : index
// CHECK-NEXT: %[[NP3:.*]] = arith.select %[[IN3]]
// CHECK-NEXT: %[[NM3:.*]] = arith.select %[[IN3]]
// CHECK-NEXT: %[[NV3:.*]] = arith.select %[[IN3]]
// CHECK-NEXT: %[[P:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %[[NP2]], %[[NP3]] : vector<4xf32>
// CHECK-NEXT: memref.store %[[P]], %[[WP]][%[[VI:.*]]] : memref<2xvector<4xf32>>
// CHECK-NEXT: %[[M:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %[[NM2]], %[[NM3]] : vector<4xf32>
// CHECK-NEXT: memref.store %[[M]], %[[WM]][%[[VI]]] : memref<2xvector<4xf32>>
// CHECK-NEXT: %[[V:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %[[NV2]], %[[NV3]] : vector<4xf32>
// CHECK-NEXT: memref.store %[[V]], %[[WV]][%[[VI]]] : memref<2xvector<4xf32>>

ag.weight @w trainable : tensor<2x3xf32> = dense<0.25>
ag.train_step @train(%x: tensor<1x2xf32> {ag.name = "x"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>} {
  %w = ag.read_weight @w : tensor<2x3xf32>
  %h = ag.matmul %x, %w : (tensor<1x2xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
  %l = ag.sum %h : tensor<1x3xf32> -> tensor<f32>
  ag.return %l : tensor<f32>
}
