ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "y"}) {
  %r = ag.dispatch_region reduction ins(%x : tensor<4xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4xf32>):
    %s = ag.sum %a : tensor<4xf32> -> tensor<f32>
    %n = ag.neg %s : tensor<f32>
    ag.yield %s : tensor<f32>
  }
  ag.return %r : tensor<f32>
}
