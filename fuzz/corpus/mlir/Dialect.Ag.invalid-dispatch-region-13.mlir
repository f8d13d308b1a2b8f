ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}, %y: tensor<8xf32> {ag.name = "y"}) -> (tensor<f32> {ag.name = "z"}) {
  %r = ag.dispatch_region reduction ins(%x, %y : tensor<4xf32>, tensor<8xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<8xf32>):
    %e = ag.exp %b : tensor<8xf32>
    %s = ag.sum %a : tensor<4xf32> -> tensor<f32>
    ag.yield %s : tensor<f32>
  }
  ag.return %r : tensor<f32>
}
