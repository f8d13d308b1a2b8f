ag.forward @f(%x: tensor<2x2xf32> {ag.name = "x"}) -> (tensor<2x2xf32> {ag.name = "y"}) {
  %y = ag.relu %x {inplace} : tensor<2x2xf32>
  ag.return %y : tensor<2x2xf32>
}
