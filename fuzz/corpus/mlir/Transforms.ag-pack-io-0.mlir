ag.forward @mlp(%obs: tensor<2x4xf32> {ag.name = "obs"}, %mask: tensor<3xf32> {ag.name = "mask"},
                %bias: tensor<2x5xf32> {ag.name = "bias"}, %scale: tensor<f32> {ag.name = "scale"})
    -> (tensor<2x4xf32> {ag.name = "y"}, tensor<f32> {ag.name = "s"}) {
  %y = ag.mul %obs, %scale : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %s = ag.sum %y : tensor<2x4xf32> -> tensor<f32>
  ag.return %y, %s : tensor<2x4xf32>, tensor<f32>
}
