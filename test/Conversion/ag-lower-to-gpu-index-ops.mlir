// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -canonicalize -cse | FileCheck %s

// Kernels reading i32 inputs clamp each index into range before using it:
// the interpreter reports an out-of-range label or row index as an error,
// a kernel cannot, and must not read out of bounds. cross_entropy is one
// work item looping over the batch.

ag.weight @table : tensor<7x3xf32>
ag.forward @index(%logits: tensor<4x5xf32> {ag.name = "logits"}, %labels: tensor<4xi32> {ag.name = "labels"},
                  %ids: tensor<6xi32> {ag.name = "ids"})
    -> (tensor<f32> {ag.name = "ce"}, tensor<6x3xf32> {ag.name = "rows"}, tensor<6xi32> {ag.name = "ids_out"}) {
  %t = ag.read_weight @table : tensor<7x3xf32>
  %0 = ag.cross_entropy %logits, %labels : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  %1 = ag.get_rows %t, %ids : (tensor<7x3xf32>, tensor<6xi32>) -> tensor<6x3xf32>
  ag.return %0, %1, %ids : tensor<f32>, tensor<6x3xf32>, tensor<6xi32>
}
// CHECK-LABEL: func.func @index
// CHECK: gpu.launch_func @cross_entropy_0::@cross_entropy_0 blocks in (%c1, %c1, %c1)
// CHECK: gpu.launch_func @get_rows_1::@get_rows_1
// An i32 input returned as an output is copied as i32.
// CHECK: gpu.launch_func @copy_2::@copy_2 {{.*}} args(%{{.*}} : memref<6xi32>, %{{.*}} : memref<6xi32>)

// CHECK-LABEL: gpu.func @cross_entropy_0
// CHECK-SAME: (%[[X:.*]]: memref<4x5xf32>, %[[L:.*]]: memref<4xi32>, %[[R:.*]]: memref<f32>)
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c1
// CHECK: scf.if %[[IN]]
// CHECK: %[[TOTAL:.*]] = scf.for %[[B:.*]] = %c0 to %c4 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[MAX:.*]] = scf.for %{{.*}} = %c0 to %c5 step %c1 iter_args
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c5 step %c1 iter_args
// CHECK: math.exp
// CHECK: %[[RAW:.*]] = memref.load %[[L]][%[[B]]] : memref<4xi32>
// CHECK: %[[IDX:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK: %[[LO:.*]] = arith.maxsi %[[IDX]], %c0 : index
// CHECK: %[[LABEL:.*]] = arith.minsi %[[LO]], %c4 : index
// CHECK: %[[LOG:.*]] = math.log %[[SUM]]
// CHECK: %[[LSE:.*]] = arith.addf %[[MAX]], %[[LOG]]
// CHECK: %[[PICK:.*]] = memref.load %[[X]][%[[B]], %[[LABEL]]]
// CHECK: %[[NLL:.*]] = arith.subf %[[LSE]], %[[PICK]]
// CHECK: arith.addf %[[ACC]], %[[NLL]]
// CHECK: %[[MEAN:.*]] = arith.divf %[[TOTAL]], %cst
// CHECK: memref.store %[[MEAN]], %[[R]][]

// CHECK-LABEL: gpu.func @get_rows_1
// CHECK-SAME: (%[[T:.*]]: memref<7x3xf32>, %[[I:.*]]: memref<6xi32>, %[[R:.*]]: memref<6x3xf32>)
// CHECK: %[[EIN:.*]] = arith.cmpi ult, %[[E:.*]], %c18
// CHECK: scf.if %[[EIN]]
// CHECK-DAG: %[[COL:.*]] = arith.remui %[[E]], %c3
// CHECK-DAG: %[[N:.*]] = arith.divui %[[E]], %c3
// CHECK: %[[RAW:.*]] = memref.load %[[I]][%[[N]]] : memref<6xi32>
// CHECK: %[[IDX:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK: %[[LO:.*]] = arith.maxsi %[[IDX]], %c0 : index
// CHECK: %[[ROW:.*]] = arith.minsi %[[LO]], %c6 : index
// CHECK: %[[V:.*]] = memref.load %[[T]][%[[ROW]], %[[COL]]]
// CHECK: memref.store %[[V]], %[[R]][%[[N]], %[[COL]]]
