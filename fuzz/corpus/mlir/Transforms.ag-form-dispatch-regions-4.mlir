ag.forward @norm(%g: tensor<100xf32> {ag.name = "g"}, %h: tensor<4x8xf32> {ag.name = "h"})
    -> (tensor<f32> {ag.name = "n"}, tensor<4xf32> {ag.name = "r"}) {
  %sq = ag.mul %g, %g : (tensor<100xf32>, tensor<100xf32>) -> tensor<100xf32>
  %s = ag.sum %sq : tensor<100xf32> -> tensor<f32>
  %n = ag.sqrt %s : tensor<f32>
  %r = ag.max %h axis = 1 : tensor<4x8xf32> -> tensor<4xf32>
  ag.return %n, %r : tensor<f32>, tensor<4xf32>
}
