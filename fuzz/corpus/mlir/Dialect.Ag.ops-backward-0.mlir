ag.forward @backward(%x: tensor<2x3xf32> {ag.name = "x"}, %labels: tensor<2xi32> {ag.name = "labels"})
    -> (tensor<2x3xf32> {ag.name = "m"}, tensor<2x3xf32> {ag.name = "h"}, tensor<5x3xf32> {ag.name = "s"}) {
  %zero = ag.constant dense<0.0> : tensor<f32>
  %m = ag.compare le, %x, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %e = ag.compare eq, %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %n = ag.compare ne, %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = ag.compare ge, %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %h = ag.one_hot %labels : tensor<2xi32> -> tensor<2x3xf32>
  %s = ag.scatter_add_rows %x, %labels : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<5x3xf32>
  ag.return %m, %h, %s : tensor<2x3xf32>, tensor<2x3xf32>, tensor<5x3xf32>
}
