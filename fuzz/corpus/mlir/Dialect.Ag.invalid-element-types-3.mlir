ag.forward @f(%x: tensor<2xi1> {ag.name = "x"}) -> () {
  ag.return
}
