ag.forward @large(%x: tensor<100000xf32> {ag.name = "x"}, %y: tensor<600x600xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "sum_x"}, tensor<1x1xf32> {ag.name = "mean_y_keep"},
        tensor<f32> {ag.name = "max_y"}, tensor<f32> {ag.name = "sum_sq"}) {
  %s = ag.sum %x : tensor<100000xf32> -> tensor<f32>
  %m = ag.mean %y {keepdim} : tensor<600x600xf32> -> tensor<1x1xf32>
  %mx = ag.max %y : tensor<600x600xf32> -> tensor<f32>
  %sq = ag.mul %y, %y : (tensor<600x600xf32>, tensor<600x600xf32>) -> tensor<600x600xf32>
  %ss = ag.sum %sq : tensor<600x600xf32> -> tensor<f32>
  ag.return %s, %m, %mx, %ss : tensor<f32>, tensor<1x1xf32>, tensor<f32>, tensor<f32>
}
