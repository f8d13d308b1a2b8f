ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  %c = arith.constant dense<1> : tensor<2xindex>
  %r = ag.dispatch_region elementwise ins(%x, %c : tensor<2xf32>, tensor<2xindex>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>, %i: tensor<2xindex>):
    %y = ag.exp %a : tensor<2xf32>
    ag.yield %y : tensor<2xf32>
  }
  ag.return
}
