ag.forward @large(%x: tensor<100000xf32> {ag.name = "x"}, %y: tensor<600x600xf32> {ag.name = "y"},
                  %t: tensor<100003xf32> {ag.name = "t"}, %c: tensor<f32> {ag.name = "c"},
                  %w: tensor<300x37xf32> {ag.name = "w"}, %r: tensor<37xf32> {ag.name = "r"})
    -> (tensor<f32> {ag.name = "sum_x"}, tensor<1x1xf32> {ag.name = "mean_y_keep"},
        tensor<f32> {ag.name = "max_y"}, tensor<f32> {ag.name = "sum_sq"},
        tensor<f32> {ag.name = "sum_t"}, tensor<f32> {ag.name = "max_t"},
        tensor<f32> {ag.name = "sum_tc"}, tensor<f32> {ag.name = "sum_wr"}) {
  %s = ag.sum %x : tensor<100000xf32> -> tensor<f32>
  %m = ag.mean %y {keepdim} : tensor<600x600xf32> -> tensor<1x1xf32>
  %mx = ag.max %y : tensor<600x600xf32> -> tensor<f32>
  %sq = ag.mul %y, %y : (tensor<600x600xf32>, tensor<600x600xf32>) -> tensor<600x600xf32>
  %ss = ag.sum %sq : tensor<600x600xf32> -> tensor<f32>
  %st = ag.sum %t : tensor<100003xf32> -> tensor<f32>
  %mt = ag.max %t : tensor<100003xf32> -> tensor<f32>
  %tc = ag.mul %t, %c : (tensor<100003xf32>, tensor<f32>) -> tensor<100003xf32>
  %stc = ag.sum %tc : tensor<100003xf32> -> tensor<f32>
  %wr = ag.add %w, %r : (tensor<300x37xf32>, tensor<37xf32>) -> tensor<300x37xf32>
  %swr = ag.sum %wr : tensor<300x37xf32> -> tensor<f32>
  ag.return %s, %m, %mx, %ss, %st, %mt, %stc, %swr : tensor<f32>, tensor<1x1xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
