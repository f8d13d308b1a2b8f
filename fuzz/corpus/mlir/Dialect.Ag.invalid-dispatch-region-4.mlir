ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}, %v: tensor<4xf32> {ag.name = "v"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region elementwise ins(%x, %v : tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4xf32>):
    %e = ag.exp %b : tensor<4xf32>
    %s = ag.add %a, %e : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
    ag.yield %s : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}
