ag.forward @step(%x: tensor<2x4xf32> {ag.name = "x"}) -> (tensor<2x4xf32> {ag.name = "y"}) {
  %m1 = ag.upload : tensor<2x4xf32>   %m2 = ag.upload : tensor<2x4xf32>
  %m3 = ag.upload : tensor<2x4xf32>
  %seed = ag.upload constant : tensor<f32> = dense<1.0>
  %0 = ag.mul %x, %m1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ag.download %0 : tensor<2x4xf32>
  %e1 = ag.eager "relu" (%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>   %e2 = ag.eager "relu" (%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  ag.return %e2 : tensor<2x4xf32>
}
