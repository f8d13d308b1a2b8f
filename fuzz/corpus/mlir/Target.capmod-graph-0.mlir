ag.weight @w : tensor<4x3xf32> = dense<0.5>
ag.weight @b : tensor<3xf32> = dense<0.1>
ag.forward @predict(%x: tensor<2x4xf32> {ag.name = "x"}) -> (tensor<2x3xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<4x3xf32>
  %b = ag.read_weight @b : tensor<3xf32>
  %xw = ag.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %h = ag.add %xw, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y = ag.tanh %h : tensor<2x3xf32>
  ag.return %y : tensor<2x3xf32>
}
