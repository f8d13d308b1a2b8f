ag.forward @f(%x: tensor<2xbf16> {ag.name = "x"}) -> () {
  ag.return
}
