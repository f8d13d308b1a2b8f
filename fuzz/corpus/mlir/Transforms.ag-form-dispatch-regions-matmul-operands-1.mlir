ag.forward @splat_rhs(%x: tensor<3x1xf32> {ag.name = "x"}) -> (tensor<3x3xf32> {ag.name = "y"}) {
  %c = ag.constant dense<2.500000e-01> : tensor<3x1xf32>
  %m = ag.matmul %x, %c {transpose_b} : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %a = ag.add %m, %c : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %t = ag.tanh %a : tensor<3x3xf32>
  ag.return %t : tensor<3x3xf32>
}
