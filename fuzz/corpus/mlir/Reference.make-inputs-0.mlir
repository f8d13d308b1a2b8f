ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %bias: tensor<2x3xf32> {ag.name = "bias"})
    -> (tensor<2x3xf32> {ag.name = "xcopy"}, tensor<f32> {ag.name = "in_range"}) {
  %sq = ag.square %x : tensor<2x3xf32>
  %abs = ag.sqrt %sq : tensor<2x3xf32>
  %one = ag.constant dense<1.0> : tensor<f32>
  %d = ag.sub %abs, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %r = ag.relu %d : tensor<2x3xf32>
  %sq2 = ag.square %bias : tensor<2x3xf32>
  %abs2 = ag.sqrt %sq2 : tensor<2x3xf32>
  %d2 = ag.sub %abs2, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %r2 = ag.relu %d2 : tensor<2x3xf32>
  %both = ag.add %r, %r2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %plus = ag.add %both, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %m = ag.mean %plus : tensor<2x3xf32> -> tensor<f32>
  ag.return %x, %m : tensor<2x3xf32>, tensor<f32>
}
