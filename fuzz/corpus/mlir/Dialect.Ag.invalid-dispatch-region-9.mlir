ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}, %b: tensor<4x4xf32> {ag.name = "b"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region matmul ins(%x, %b : tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %c: tensor<4x4xf32>):
    %m = ag.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %s = ag.sum %m : tensor<4x4xf32> -> tensor<f32>
    %t = ag.add %c, %s : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    ag.yield %t : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}
