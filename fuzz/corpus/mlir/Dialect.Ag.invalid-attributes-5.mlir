ag.forward @f(%x: tensor<2x2xf32> {ag.name = "x"}) -> (tensor<2x2xf32> {ag.name = "y"}) {
  %y = ag.matmul %x, %x {precision = "high"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  ag.return %y : tensor<2x2xf32>
}
