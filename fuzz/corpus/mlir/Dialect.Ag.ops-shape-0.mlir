ag.weight @table : tensor<10x4xf32>

ag.forward @shapes(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<3xf32> {ag.name = "y"},
                   %labels: tensor<2xi32> {ag.name = "labels"}) -> (tensor<f32> {ag.name = "loss"}) {
  %min = ag.minimum %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %max = ag.maximum %y, %min : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %rmax = ag.max %max axis = 1 keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  %amax = ag.max %max : tensor<2x3xf32> -> tensor<f32>
  %cl = ag.clamp %max min = 0.8 max = 1.2 : tensor<2x3xf32>
  %b = ag.broadcast_to %y : tensor<3xf32> -> tensor<2x3xf32>
  %r = ag.reshape %b : tensor<2x3xf32> -> tensor<3x2xf32>
  %t = ag.transpose %r permutation = [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  %c = ag.concat %t, %cl, %x axis = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  %s = ag.slice %c axis = -1 start = 2 end = 7 : tensor<2x9xf32> -> tensor<2x5xf32>
  %sm = ag.softmax %s axis = 1 : tensor<2x5xf32>
  %lsm = ag.log_softmax %sm axis = -1 : tensor<2x5xf32>
  %ce = ag.cross_entropy %lsm, %labels : (tensor<2x5xf32>, tensor<2xi32>) -> tensor<f32>
  %mse = ag.mse %x, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  %tb = ag.read_weight @table : tensor<10x4xf32>
  %rows = ag.get_rows %tb, %labels : (tensor<10x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  ag.return %ce : tensor<f32>
}
