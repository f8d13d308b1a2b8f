ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %u = ag.eager "k" () : () -> tensor<?x3xf32>
  %0 = ag.sub %x, %u : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>
  ag.return
}
