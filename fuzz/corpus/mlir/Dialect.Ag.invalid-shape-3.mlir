ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %0 = ag.clamp %x min = 1.2 max = 0.8 : tensor<2x3xf32>
  ag.return
}
