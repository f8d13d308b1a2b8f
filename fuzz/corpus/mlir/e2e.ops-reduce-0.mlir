ag.forward @f(%x: tensor<4x5x6xf32> {ag.name = "x"}, %y: tensor<4x5x6xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "max_all"}, tensor<1x1x1xf32> {ag.name = "max_all_keep"},
        tensor<5x6xf32> {ag.name = "max_0"}, tensor<4x5x1xf32> {ag.name = "max_m1_keep"},
        tensor<4x6xf32> {ag.name = "max_mid"}, tensor<3xf32> {ag.name = "max_nan"},
        tensor<f32> {ag.name = "mse"}, tensor<f32> {ag.name = "mse_self"}) {
  %nan = ag.constant dense<[[-1.0, 0x7FC00000, 2.0], [-1.0, -3.0, -2.0], [0.5, 0.25, 4.0]]> : tensor<3x3xf32>
  %0 = ag.max %x : tensor<4x5x6xf32> -> tensor<f32>
  %1 = ag.max %x keepdim : tensor<4x5x6xf32> -> tensor<1x1x1xf32>
  %2 = ag.max %x axis = 0 : tensor<4x5x6xf32> -> tensor<5x6xf32>
  %3 = ag.max %x axis = -1 keepdim : tensor<4x5x6xf32> -> tensor<4x5x1xf32>
  %4 = ag.max %x axis = -2 : tensor<4x5x6xf32> -> tensor<4x6xf32>
  %5 = ag.max %nan axis = 1 : tensor<3x3xf32> -> tensor<3xf32>
  %6 = ag.mse %x, %y : (tensor<4x5x6xf32>, tensor<4x5x6xf32>) -> tensor<f32>
  %7 = ag.mse %y, %y : (tensor<4x5x6xf32>, tensor<4x5x6xf32>) -> tensor<f32>
  ag.return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<f32>, tensor<1x1x1xf32>, tensor<5x6xf32>, tensor<4x5x1xf32>,
        tensor<4x6xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>
}
