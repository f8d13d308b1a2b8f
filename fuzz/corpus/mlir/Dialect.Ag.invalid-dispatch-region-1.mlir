ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<8xf32>):
    %n = ag.neg %a : tensor<8xf32>
    ag.yield %n : tensor<8xf32>
  }
  ag.return %r : tensor<4xf32>
}
