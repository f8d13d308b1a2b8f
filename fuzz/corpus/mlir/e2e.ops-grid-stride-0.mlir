ag.forward @f(%x: tensor<2049x2048xf32> {ag.name = "x"})
    -> (tensor<2048x2049xf32> {ag.name = "t"}, tensor<2049x2048xf32> {ag.name = "same"}) {
  %t = ag.transpose %x permutation = [1, 0] : tensor<2049x2048xf32> -> tensor<2048x2049xf32>
  ag.return %t, %x : tensor<2048x2049xf32>, tensor<2049x2048xf32>
}
