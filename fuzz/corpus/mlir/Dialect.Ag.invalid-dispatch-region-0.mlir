ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %c = ag.constant dense<1.0> : tensor<2x2xf32>
    ag.yield %c : tensor<2x2xf32>
  }
  ag.return %r : tensor<4xf32>
}
