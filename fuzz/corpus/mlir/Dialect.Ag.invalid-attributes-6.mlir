ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %y = ag.dispatch_region elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %t = ag.tanh %a {approx} : tensor<4xf32>
    ag.yield %t : tensor<4xf32>
  }
  ag.return %y : tensor<4xf32>
}
