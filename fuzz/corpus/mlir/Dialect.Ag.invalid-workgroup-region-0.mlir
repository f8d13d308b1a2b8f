ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "y"}) {
  %r = ag.workgroup_region ins(%x : tensor<4xf32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<4xf32>):
    %n = ag.neg %a : tensor<4xf32>
    ag.yield %n : tensor<4xf32>
  }
  ag.return %r : tensor<f32>
}
