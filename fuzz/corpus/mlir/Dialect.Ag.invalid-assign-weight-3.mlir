ag.weight @t : tensor<4xf32> = dense<0.0>
ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> () {
  ag.assign_weight @nope, %x : tensor<4xf32>
  ag.return
}
