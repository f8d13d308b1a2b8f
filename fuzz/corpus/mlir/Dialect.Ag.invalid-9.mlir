ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  %a = ag.probe "p" %x : tensor<2xf32>
  %b = ag.probe "p" %x : tensor<2xf32>
  ag.return
}
