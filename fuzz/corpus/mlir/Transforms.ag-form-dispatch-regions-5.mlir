ag.forward @poisoned_norm(%g: tensor<100xf32> {ag.name = "g"}, %p: tensor<f32> {ag.name = "p"}, %v: tensor<4xf32> {ag.name = "v"})
    -> (tensor<f32> {ag.name = "n"}, tensor<4xf32> {ag.name = "w"}) {
  %sq = ag.mul %g, %g : (tensor<100xf32>, tensor<100xf32>) -> tensor<100xf32>
  %s = ag.sum %sq : tensor<100xf32> -> tensor<f32>
  %n = ag.sqrt %s : tensor<f32>
  %t = ag.add %n, %p : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %gv = ag.mul %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %sv = ag.sum %gv : tensor<4xf32> -> tensor<f32>
  %w = ag.add %sv, %v : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  ag.return %t, %w : tensor<f32>, tensor<4xf32>
}
