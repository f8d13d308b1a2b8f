// RUN: capture-opt %s -split-input-file -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -canonicalize -cse | FileCheck %s

// Kernel bodies of the data-movement, NaN-propagating and reduction ops:
// which indices each load uses, and how many loops a work item runs.

// Broadcasting puts the rank-1 operand first: it is indexed by the column
// only; minimumf/maximumf (not minnumf/maxnumf) propagate NaN.
ag.forward @binary(%x: tensor<2x4xf32> {ag.name = "x"}, %b: tensor<4xf32> {ag.name = "b"})
    -> (tensor<2x4xf32> {ag.name = "mn"}, tensor<2x4xf32> {ag.name = "mx"}) {
  %0 = ag.minimum %b, %x : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = ag.maximum %x, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  ag.return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}
// CHECK-LABEL: gpu.func @minimum_0
// CHECK-SAME: (%[[B:.*]]: memref<4xf32>, %[[X:.*]]: memref<2x4xf32>, %[[R:.*]]: memref<2x4xf32>)
// CHECK: %[[IIN:.*]] = arith.cmpi ult, %[[I:.*]], %c8
// CHECK: scf.if %[[IIN]]
// CHECK-DAG: %[[COL:.*]] = arith.remui %[[I]], %c4
// CHECK-DAG: %[[ROW:.*]] = arith.divui %[[I]], %c4
// CHECK: %[[VB:.*]] = memref.load %[[B]][%[[COL]]]
// CHECK: %[[VX:.*]] = memref.load %[[X]][%[[ROW]], %[[COL]]]
// CHECK: %[[M:.*]] = arith.minimumf %[[VB]], %[[VX]] : f32
// CHECK: memref.store %[[M]], %[[R]][%[[ROW]], %[[COL]]]
// CHECK-LABEL: gpu.func @maximum_1
// CHECK: arith.maximumf

// -----

// Clamp is maximumf then minimumf with the attributes: NaN stays NaN.
ag.forward @clamp(%x: tensor<5xf32> {ag.name = "x"}) -> (tensor<5xf32> {ag.name = "y"}) {
  %0 = ag.clamp %x min = -5.000000e-01 max = 2.500000e-01 : tensor<5xf32>
  ag.return %0 : tensor<5xf32>
}
// CHECK-LABEL: gpu.func @clamp_0
// CHECK-DAG: %[[LO:.*]] = arith.constant -5.000000e-01 : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[V:.*]] = memref.load
// CHECK: %[[A:.*]] = arith.maximumf %[[V]], %[[LO]] : f32
// CHECK: %[[B:.*]] = arith.minimumf %[[A]], %[[HI]] : f32
// CHECK: memref.store %[[B]]

// -----

// Transpose: result element [i, j] is input element [j, i]. Slice: the axis
// index is shifted by start. Concat: an scf.if per boundary picks the input
// holding the element, so no load touches another input's range.
ag.forward @moves(%x: tensor<2x4xf32> {ag.name = "x"}, %y: tensor<2x3xf32> {ag.name = "y"})
    -> (tensor<4x2xf32> {ag.name = "t"}, tensor<2x2xf32> {ag.name = "s"}, tensor<2x7xf32> {ag.name = "c"},
        tensor<3x2x4xf32> {ag.name = "bc"}) {
  %0 = ag.transpose %x permutation = [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  %1 = ag.slice %x axis = -1 start = 2 end = 4 : tensor<2x4xf32> -> tensor<2x2xf32>
  %2 = ag.concat %x, %y axis = 1 : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
  %3 = ag.broadcast_to %x : tensor<2x4xf32> -> tensor<3x2x4xf32>
  ag.return %0, %1, %2, %3 : tensor<4x2xf32>, tensor<2x2xf32>, tensor<2x7xf32>, tensor<3x2x4xf32>
}
// CHECK-LABEL: gpu.func @transpose_0
// CHECK-SAME: (%[[X:.*]]: memref<2x4xf32>, %[[R:.*]]: memref<4x2xf32>)
// CHECK: %[[IIN:.*]] = arith.cmpi ult, %[[I:.*]], %c8
// CHECK: scf.if %[[IIN]]
// CHECK-DAG: %[[J:.*]] = arith.remui %[[I]], %c2
// CHECK-DAG: %[[K:.*]] = arith.divui %[[I]], %c2
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[J]], %[[K]]]
// CHECK: memref.store %[[V]], %[[R]][%[[K]], %[[J]]]

// CHECK-LABEL: gpu.func @slice_1
// CHECK-SAME: (%[[X:.*]]: memref<2x4xf32>, %[[R:.*]]: memref<2x2xf32>)
// CHECK: %[[IIN:.*]] = arith.cmpi ult, %[[I:.*]], %c4
// CHECK: scf.if %[[IIN]]
// CHECK-DAG: %[[COL:.*]] = arith.remui %[[I]], %c2
// CHECK-DAG: %[[ROW:.*]] = arith.divui %[[I]], %c2
// CHECK: %[[SHIFTED:.*]] = arith.addi %[[COL]], %c2
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[ROW]], %[[SHIFTED]]]
// CHECK: memref.store %[[V]], %[[R]][%[[ROW]], %[[COL]]]

// CHECK-LABEL: gpu.func @concat_2
// CHECK-SAME: (%[[A:.*]]: memref<2x4xf32>, %[[B:.*]]: memref<2x3xf32>, %[[R:.*]]: memref<2x7xf32>)
// CHECK: %[[IIN:.*]] = arith.cmpi ult, %[[I:.*]], %c14
// CHECK: scf.if %[[IIN]]
// CHECK-DAG: %[[COL:.*]] = arith.remui %[[I]], %c7
// CHECK-DAG: %[[ROW:.*]] = arith.divui %[[I]], %c7
// CHECK: %[[IN_A:.*]] = arith.cmpi ult, %[[COL]], %c4
// CHECK: %[[V:.*]] = scf.if %[[IN_A]] -> (f32) {
// CHECK: memref.load %[[A]][%[[ROW]], %[[COL]]]
// CHECK: } else {
// CHECK: %[[BCOL:.*]] = arith.subi %[[COL]], %c4
// CHECK: memref.load %[[B]][%[[ROW]], %[[BCOL]]]
// CHECK: }
// CHECK: memref.store %[[V]], %[[R]][%[[ROW]], %[[COL]]]

// broadcast_to ignores the new leading dimension.
// CHECK-LABEL: gpu.func @broadcast_to_3
// CHECK-SAME: (%[[X:.*]]: memref<2x4xf32>, %[[R:.*]]: memref<3x2x4xf32>)
// CHECK: %[[IIN:.*]] = arith.cmpi ult, %[[I:.*]], %c24
// CHECK: scf.if %[[IIN]]
// CHECK-DAG: %[[COL:.*]] = arith.remui %[[I]], %c4
// CHECK-DAG: %[[Q:.*]] = arith.divui %[[I]], %c4
// CHECK-DAG: %[[ROW:.*]] = arith.remui %[[Q]], %c2
// CHECK-DAG: %[[D0:.*]] = arith.divui %[[I]], %c8
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[ROW]], %[[COL]]]
// CHECK: memref.store %[[V]], %[[R]][%[[D0]], %[[ROW]], %[[COL]]]

// -----

// Max along axis 0 starts from -inf and folds with maximumf (NaN
// propagates).
ag.forward @max(%x: tensor<3x4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "m"}) {
  %0 = ag.max %x axis = -2 : tensor<3x4xf32> -> tensor<4xf32>
  ag.return %0 : tensor<4xf32>
}
// CHECK-LABEL: gpu.func @max_0
// CHECK-SAME: (%[[X:.*]]: memref<3x4xf32>, %[[R:.*]]: memref<4xf32>)
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[IIN:.*]] = arith.cmpi ult, %[[I:.*]], %c4
// CHECK: scf.if %[[IIN]]
// CHECK: %[[M:.*]] = scf.for %[[J:.*]] = %c0 to %c3 step %c1 iter_args(%[[ACC:.*]] = %[[NEGINF]]) -> (f32)
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[J]], %[[I]]]
// CHECK: arith.maximumf %[[ACC]], %[[V]]
// CHECK: memref.store %[[M]], %[[R]][%[[I]]]

// -----

// Softmax runs one work item per row: 3 * 5 rows of 4 elements along the
// middle axis, so the launch needs one workgroup, and each row loops three
// times over the axis: max, sum of exp(x - max), then the stores.
ag.forward @softmax(%x: tensor<3x4x5xf32> {ag.name = "x"})
    -> (tensor<3x4x5xf32> {ag.name = "p"}, tensor<3x4x5xf32> {ag.name = "lp"}) {
  %0 = ag.softmax %x axis = 1 : tensor<3x4x5xf32>
  %1 = ag.log_softmax %x axis = -2 : tensor<3x4x5xf32>
  ag.return %0, %1 : tensor<3x4x5xf32>, tensor<3x4x5xf32>
}
// CHECK-LABEL: func.func @softmax
// CHECK: gpu.launch_func @softmax_0::@softmax_0 blocks in (%c1, %c1, %c1)
// CHECK: gpu.launch_func @log_softmax_1::@log_softmax_1 blocks in (%c1, %c1, %c1)
// CHECK-LABEL: gpu.func @softmax_0
// CHECK-SAME: (%[[X:.*]]: memref<3x4x5xf32>, %[[R:.*]]: memref<3x4x5xf32>)
// CHECK: %[[ROWIN:.*]] = arith.cmpi ult, %[[ROW:.*]], %c15
// CHECK: scf.if %[[ROWIN]]
// CHECK-DAG: %[[K:.*]] = arith.remui %[[ROW]], %c5
// CHECK-DAG: %[[B:.*]] = arith.divui %[[ROW]], %c5
// CHECK: %[[MAX:.*]] = scf.for %[[J:.*]] = %c0 to %c4 step %c1 iter_args(%[[ACC:.*]] = %cst{{.*}}) -> (f32)
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[B]], %[[J]], %[[K]]]
// CHECK: arith.maximumf %[[ACC]], %[[V]]
// CHECK: %[[SUM:.*]] = scf.for %[[J:.*]] = %c0 to %c4 step %c1 iter_args
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[B]], %[[J]], %[[K]]]
// CHECK: %[[D:.*]] = arith.subf %[[V]], %[[MAX]]
// CHECK: math.exp %[[D]]
// CHECK: scf.for %[[J:.*]] = %c0 to %c4 step %c1 {
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[B]], %[[J]], %[[K]]]
// CHECK: %[[D:.*]] = arith.subf %[[V]], %[[MAX]]
// CHECK: %[[E:.*]] = math.exp %[[D]]
// CHECK: %[[P:.*]] = arith.divf %[[E]], %[[SUM]]
// CHECK: memref.store %[[P]], %[[R]][%[[B]], %[[J]], %[[K]]]

// log_softmax is x - max - log(sum), not log(softmax): no exp on the way out.
// CHECK-LABEL: gpu.func @log_softmax_1
// CHECK: %[[MAX:.*]] = scf.for
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: %[[LOGSUM:.*]] = math.log %[[SUM]]
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK-NOT: math.exp
// CHECK: %[[D:.*]] = arith.subf %{{.*}}, %[[MAX]]
// CHECK: %[[LP:.*]] = arith.subf %[[D]], %[[LOGSUM]]
// CHECK: memref.store %[[LP]]

// -----

// mse is one work item looping over every element.
ag.forward @mse(%a: tensor<2x3xf32> {ag.name = "a"}, %b: tensor<2x3xf32> {ag.name = "b"}) -> (tensor<f32> {ag.name = "l"}) {
  %0 = ag.mse %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  ag.return %0 : tensor<f32>
}
// CHECK-LABEL: gpu.func @mse_0
// CHECK-SAME: (%[[A:.*]]: memref<2x3xf32>, %[[B:.*]]: memref<2x3xf32>, %[[R:.*]]: memref<f32>)
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c1
// CHECK: scf.if %[[IN]]
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c6 step %c1 iter_args
// CHECK: %[[VA:.*]] = memref.load %[[A]]
// CHECK: %[[VB:.*]] = memref.load %[[B]]
// CHECK: %[[D:.*]] = arith.subf %[[VA]], %[[VB]]
// CHECK: arith.mulf %[[D]], %[[D]]
// CHECK: %[[MEAN:.*]] = arith.divf %[[SUM]], %cst
// CHECK: memref.store %[[MEAN]], %[[R]][]

// -----

// ag.reshape gets no kernel: it views its root's bytes with its own type.
// The root stays live until the reshape's last user (the neg below must not
// take the exp's range), a probe of a reshape reads the root's range, a
// reshaped compute result that is an output is written in place, and a
// reshaped input that is an output is copied.
ag.forward @alias(%x: tensor<2x3xf32> {ag.name = "x"})
    -> (tensor<6xf32> {ag.name = "flat"}, tensor<3x2xf32> {ag.name = "e"}, tensor<6xf32> {ag.name = "s"}) {
  %a = ag.exp %x : tensor<2x3xf32>
  %v = ag.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
  %b = ag.neg %x : tensor<2x3xf32>
  %w = ag.reshape %b : tensor<2x3xf32> -> tensor<6xf32>
  %p = ag.probe "w" %w : tensor<6xf32>
  %s = ag.add %v, %p : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %f = ag.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %e0 = ag.sqrt %x : tensor<2x3xf32>
  %e = ag.reshape %e0 : tensor<2x3xf32> -> tensor<3x2xf32>
  ag.return %f, %e, %s : tensor<6xf32>, tensor<3x2xf32>, tensor<6xf32>
}
// CHECK-LABEL: func.func @alias
// CHECK-SAME: (%[[IN:.*]]: memref<32xi8>, %[[OUT:.*]]: memref<544xi8>)
// CHECK-SAME: ag.probes = [#ag.probe<scratch, #ag.segment<"w", [6], f32, offset = 256>>]
// CHECK: %[[X:.*]] = ag.binding <input, 0> : memref<2x3xf32>
// CHECK: %[[A:.*]] = ag.binding <scratch, 0> : memref<2x3xf32>
// CHECK: gpu.launch_func @exp_0::@exp_0 {{.*}} args(%[[X]] : memref<2x3xf32>, %[[A]] : memref<2x3xf32>)
// CHECK: %[[B:.*]] = ag.binding <scratch, 256> : memref<2x3xf32>
// CHECK: gpu.launch_func @neg_1::@neg_1 {{.*}} args(%[[X]] : memref<2x3xf32>, %[[B]] : memref<2x3xf32>)
// CHECK: %[[V:.*]] = ag.binding <scratch, 0> : memref<6xf32>
// CHECK: %[[W:.*]] = ag.binding <scratch, 256> : memref<6xf32>
// CHECK: %[[S:.*]] = ag.binding <output, 512> : memref<6xf32>
// CHECK: gpu.launch_func @add_2::@add_2 {{.*}} args(%[[V]] : memref<6xf32>, %[[W]] : memref<6xf32>, %[[S]] : memref<6xf32>)
// CHECK: %[[E:.*]] = ag.binding <output, 256> : memref<2x3xf32>
// CHECK: gpu.launch_func @sqrt_3::@sqrt_3 {{.*}} args(%[[X]] : memref<2x3xf32>, %[[E]] : memref<2x3xf32>)
// CHECK: %[[XF:.*]] = ag.binding <input, 0> : memref<6xf32>
// CHECK: %[[F:.*]] = ag.binding <output, 0> : memref<6xf32>
// CHECK: gpu.launch_func @copy_4::@copy_4 {{.*}} args(%[[XF]] : memref<6xf32>, %[[F]] : memref<6xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: gpu.module @reshape
