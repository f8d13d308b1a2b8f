ag.forward @f(%x: tensor<4x3xf32> {ag.name = "x"}, %l: tensor<1x4xi32> {ag.name = "l"}) -> (tensor<f32> {ag.name = "y"}) {
  %r = ag.workgroup_region ins(%x, %l : tensor<4x3xf32>, tensor<1x4xi32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<4x3xf32>, %b: tensor<1x4xi32>):
    %f = ag.reshape %b : tensor<1x4xi32> -> tensor<4xi32>
    %c = ag.cross_entropy %a, %f : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<f32>
    ag.yield %c : tensor<f32>
  }
  ag.return %r : tensor<f32>
}
