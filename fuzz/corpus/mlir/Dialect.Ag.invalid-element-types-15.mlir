ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  %e = ag.eager "k" () : () -> tensor<2xindex>
  ag.return
}
