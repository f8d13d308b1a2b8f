ag.forward @f(%x: tensor<?xf32> {ag.name = "x"}) -> () {
  ag.return
}
