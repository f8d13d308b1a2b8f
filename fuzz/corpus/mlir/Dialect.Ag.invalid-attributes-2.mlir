ag.forward @f(%x: tensor<2x2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %y = ag.sum %x axis = 1 {keep_dim} : tensor<2x2xf32> -> tensor<2xf32>
  ag.return %y : tensor<2xf32>
}
