ag.forward @f(%x: tensor<5x3xf32> {ag.name = "x"}, %y: tensor<5x4xf32> {ag.name = "y"}) -> (tensor<3x4xf32> {ag.name = "w"}) {
  %r:2 = ag.dispatch_region matmul ins(%x, %y : tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>, tensor<4xf32> {
  ^bb0(%a: tensor<5x3xf32>, %b: tensor<5x4xf32>):
    %m = ag.matmul %a, %b {transpose_a} : (tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
    %s = ag.sum %b axis = 0 : tensor<5x4xf32> -> tensor<4xf32>
    ag.yield %m, %s : tensor<3x4xf32>, tensor<4xf32>
  }
  ag.return %r#0 : tensor<3x4xf32>
}
