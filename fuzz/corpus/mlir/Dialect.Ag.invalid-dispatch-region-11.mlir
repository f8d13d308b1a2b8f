ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}, %y: tensor<f32> {ag.name = "y"}) -> (tensor<f32> {ag.name = "z"}) {
  %r = ag.dispatch_region reduction ins(%x, %y : tensor<4xf32>, tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<f32>):
    %s = ag.sum %a : tensor<4xf32> -> tensor<f32>
    %n = ag.mul %s, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    ag.yield %n : tensor<f32>
  }
  ag.return %r : tensor<f32>
}
