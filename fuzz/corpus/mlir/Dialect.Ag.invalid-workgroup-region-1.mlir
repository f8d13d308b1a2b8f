ag.forward @f(%x: tensor<4x4xf32> {ag.name = "x"}) -> (tensor<4x4xf32> {ag.name = "y"}) {
  %r = ag.workgroup_region ins(%x : tensor<4x4xf32>) -> (tensor<4x4xf32>) {
  ^bb0(%a: tensor<4x4xf32>):
    %m = ag.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    ag.yield %m : tensor<4x4xf32>
  }
  ag.return %r : tensor<4x4xf32>
}
