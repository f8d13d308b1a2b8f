ag.forward @convex(%a: tensor<8x8xf32> {ag.name = "a"}, %w: tensor<8x8xf32> {ag.name = "w"})
    -> (tensor<f32> {ag.name = "s"}, tensor<8x8xf32> {ag.name = "y"}) {
  %e = ag.exp %a : tensor<8x8xf32>
  %mm = ag.matmul %e, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = ag.sum %e axis = 1 : tensor<8x8xf32> -> tensor<8xf32>
  %s = ag.sum %r : tensor<8xf32> -> tensor<f32>
  %y = ag.neg %mm : tensor<8x8xf32>
  ag.return %s, %y : tensor<f32>, tensor<8x8xf32>
}
