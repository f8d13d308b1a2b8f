ag.forward @f(%x: tensor<2xindex> {ag.name = "x"}) -> () {
  ag.return
}
