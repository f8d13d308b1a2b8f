ag.weight @w : tensor<4x3xf32> = dense<0.25>
ag.forward @all(%x: tensor<2x4xf32> {ag.name = "x"}) -> (tensor<2x3xf32> {ag.name = "y"}, tensor<f32> {ag.name = "s"},
                                                         tensor<1x3xf32> {ag.name = "m"}, tensor<2x4xf32> {ag.name = "x2"}) {
  %w = ag.read_weight @w : tensor<4x3xf32>
  %c = ag.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = ag.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %1 = ag.add %0, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = ag.sub %1, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = ag.mul %2, %2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = ag.div %3, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = ag.neg %4 : tensor<2x3xf32>
  %6 = ag.exp %5 : tensor<2x3xf32>
  %7 = ag.log %6 : tensor<2x3xf32>
  %8 = ag.tanh %7 : tensor<2x3xf32>
  %9 = ag.sigmoid %8 : tensor<2x3xf32>
  %10 = ag.relu %9 : tensor<2x3xf32>
  %11 = ag.sqrt %10 : tensor<2x3xf32>
  %12 = ag.square %11 : tensor<2x3xf32>
  %s = ag.sum %12 : tensor<2x3xf32> -> tensor<f32>
  %m = ag.mean %12 axis = 0 keepdim : tensor<2x3xf32> -> tensor<1x3xf32>
  ag.return %12, %s, %m, %x : tensor<2x3xf32>, tensor<f32>, tensor<1x3xf32>, tensor<2x4xf32>
}
