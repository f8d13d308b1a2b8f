ag.forward @splat_producers(%w: tensor<2x7xf32> {ag.name = "w"}, %s: tensor<f32> {ag.name = "s"})
    -> (tensor<5x7xf32> {ag.name = "y"}) {
  %g = ag.constant dense<1.000000e-01> : tensor<f32>
  %b = ag.broadcast_to %g : tensor<f32> -> tensor<5x2xf32>
  %k = ag.constant dense<2.000000e+00> : tensor<2x7xf32>
  %kw = ag.mul %k, %w : (tensor<2x7xf32>, tensor<2x7xf32>) -> tensor<2x7xf32>
  %kn = ag.neg %kw : tensor<2x7xf32>
  %m = ag.matmul %b, %kn : (tensor<5x2xf32>, tensor<2x7xf32>) -> tensor<5x7xf32>
  %y = ag.mul %m, %s : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  ag.return %y : tensor<5x7xf32>
}
