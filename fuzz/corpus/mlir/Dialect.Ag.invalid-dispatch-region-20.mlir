ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}, %w: tensor<4x1xf32> {ag.name = "w"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region matmul ins(%x, %w, %x : tensor<4x4xf32>, tensor<4x1xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>, %c: tensor<4x4xf32>):
    %m = ag.matmul %a, %b : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %s = ag.add %c, %m : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
    ag.yield %s : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}
