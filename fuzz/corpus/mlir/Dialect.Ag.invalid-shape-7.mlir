ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %0 = ag.transpose %x permutation = [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  ag.return
}
