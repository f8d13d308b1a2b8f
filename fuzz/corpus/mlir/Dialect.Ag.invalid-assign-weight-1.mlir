ag.weight @t : tensor<4xf32> = dense<0.0>
ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  ag.assign_weight @t, %x : tensor<4xf32>
  %t = ag.read_weight @t : tensor<4xf32>
  ag.return %t : tensor<4xf32>
}
