// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s

// The shape, selection and loss ops survive print -> parse -> print.

ag.weight @table : tensor<10x4xf32>

// CHECK-LABEL: ag.forward @shapes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {ag.name = "x"}, %[[Y:.*]]: tensor<3xf32> {ag.name = "y"}, %[[L:.*]]: tensor<2xi32> {ag.name = "labels"})
ag.forward @shapes(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<3xf32> {ag.name = "y"},
                   %labels: tensor<2xi32> {ag.name = "labels"}) -> (tensor<f32> {ag.name = "loss"}) {
  // CHECK: %[[MIN:.*]] = ag.minimum %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %min = ag.minimum %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: %[[MAX:.*]] = ag.maximum %[[Y]], %[[MIN]] : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %max = ag.maximum %y, %min : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: ag.max %[[MAX]] axis = 1 keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  %rmax = ag.max %max axis = 1 keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  // CHECK: ag.max %[[MAX]] : tensor<2x3xf32> -> tensor<f32>
  %amax = ag.max %max : tensor<2x3xf32> -> tensor<f32>
  // CHECK: %[[CL:.*]] = ag.clamp %[[MAX]] min = 8.000000e-01 max = 1.200000e+00 : tensor<2x3xf32>
  %cl = ag.clamp %max min = 0.8 max = 1.2 : tensor<2x3xf32>
  // CHECK: %[[B:.*]] = ag.broadcast_to %[[Y]] : tensor<3xf32> -> tensor<2x3xf32>
  %b = ag.broadcast_to %y : tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: %[[R:.*]] = ag.reshape %[[B]] : tensor<2x3xf32> -> tensor<3x2xf32>
  %r = ag.reshape %b : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: %[[T:.*]] = ag.transpose %[[R]] permutation = [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  %t = ag.transpose %r permutation = [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  // CHECK: %[[C:.*]] = ag.concat %[[T]], %[[CL]], %[[X]] axis = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  %c = ag.concat %t, %cl, %x axis = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  // CHECK: %[[S:.*]] = ag.slice %[[C]] axis = -1 start = 2 end = 7 : tensor<2x9xf32> -> tensor<2x5xf32>
  %s = ag.slice %c axis = -1 start = 2 end = 7 : tensor<2x9xf32> -> tensor<2x5xf32>
  // CHECK: %[[SM:.*]] = ag.softmax %[[S]] axis = 1 : tensor<2x5xf32>
  %sm = ag.softmax %s axis = 1 : tensor<2x5xf32>
  // CHECK: %[[LSM:.*]] = ag.log_softmax %[[SM]] axis = -1 : tensor<2x5xf32>
  %lsm = ag.log_softmax %sm axis = -1 : tensor<2x5xf32>
  // CHECK: %[[CE:.*]] = ag.cross_entropy %[[LSM]], %[[L]] : (tensor<2x5xf32>, tensor<2xi32>) -> tensor<f32>
  %ce = ag.cross_entropy %lsm, %labels : (tensor<2x5xf32>, tensor<2xi32>) -> tensor<f32>
  // CHECK: ag.mse %[[X]], %[[T]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  %mse = ag.mse %x, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  // CHECK: %[[TB:.*]] = ag.read_weight @table
  %tb = ag.read_weight @table : tensor<10x4xf32>
  // CHECK: ag.get_rows %[[TB]], %[[L]] : (tensor<10x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  %rows = ag.get_rows %tb, %labels : (tensor<10x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  // CHECK: ag.return %[[CE]] : tensor<f32>
  ag.return %ce : tensor<f32>
}
