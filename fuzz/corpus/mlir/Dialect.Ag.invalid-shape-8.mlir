ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %0 = ag.transpose %x permutation = [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  ag.return
}
