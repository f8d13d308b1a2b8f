ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %y: tensor<2xf32> {ag.name = "y"}) -> (tensor<2xf32> {ag.name = "z"}) {
  %r = ag.dispatch_region reduction ins(%x, %y : tensor<2x3xf32>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2x3xf32>, %b: tensor<2xf32>):
    %s = ag.sum %a axis = 1 : tensor<2x3xf32> -> tensor<2xf32>
    %n = ag.mul %s, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ag.yield %n : tensor<2xf32>
  }
  ag.return %r : tensor<2xf32>
}
