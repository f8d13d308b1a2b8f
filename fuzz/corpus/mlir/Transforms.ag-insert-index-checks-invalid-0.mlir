ag.forward @f(%x: tensor<4x3xf32> {ag.name = "x"}, %labels: tensor<4xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "index_check.0"}) {
  %l = ag.cross_entropy %x, %labels : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}
