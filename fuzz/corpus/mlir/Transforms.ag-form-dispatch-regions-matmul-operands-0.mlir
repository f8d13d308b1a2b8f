ag.forward @frozen_mean_grad(%w: tensor<2x7xf32> {ag.name = "w"}, %h: tensor<5x7xf32> {ag.name = "h"})
    -> (tensor<5x7xf32> {ag.name = "dh"}) {
  %dout = ag.constant dense<1.000000e-01> : tensor<5x2xf32>
  %zero = ag.constant dense<0.000000e+00> : tensor<f32>
  %one = ag.constant dense<1.000000e+00> : tensor<f32>
  %d = ag.matmul %dout, %w : (tensor<5x2xf32>, tensor<2x7xf32>) -> tensor<5x7xf32>
  %c = ag.compare le, %h, %zero : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  %mask = ag.sub %one, %c : (tensor<f32>, tensor<5x7xf32>) -> tensor<5x7xf32>
  %dh = ag.mul %d, %mask : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xf32>
  ag.return %dh : tensor<5x7xf32>
}
