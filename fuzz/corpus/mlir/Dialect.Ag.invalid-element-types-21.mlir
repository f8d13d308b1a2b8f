ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  %c = arith.constant dense<true> : tensor<2xi1>
  ag.eager "k" (%x, %c) : (tensor<2xf32>, tensor<2xi1>) -> ()
  ag.return
}
