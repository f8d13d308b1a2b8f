ag.weight @w : tensor<3xf32>
ag.forward @predict(%x: tensor<3xf32> {ag.name = "x"}) -> (tensor<3xf32> {ag.name = "y"}, tensor<3xf32> {ag.name = "w"}) {
  %w = ag.read_weight @w : tensor<3xf32>
  %d = ag.stop_gradient %w : tensor<3xf32>
  %y = ag.mul %x, %d : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %e = ag.stop_gradient %w : tensor<3xf32>
  ag.return %y, %e : tensor<3xf32>, tensor<3xf32>
}
