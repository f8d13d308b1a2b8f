ag.forward @f(%l: tensor<2xi32> {ag.name = "l"}) -> () {
  %0 = ag.one_hot %l : tensor<2xi32> -> tensor<3x4xf32>
  ag.return
}
