ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "y"}) {
  %r = ag.dispatch_region reduction ins(%x : tensor<4xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4xf32>):
    %c = ag.constant dense<1.0> : tensor<f32>
    ag.yield %c : tensor<f32>
  }
  ag.return %r : tensor<f32>
}
