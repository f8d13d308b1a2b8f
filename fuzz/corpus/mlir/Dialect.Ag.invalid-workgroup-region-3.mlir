ag.forward @f(%l: tensor<1x4xi32> {ag.name = "l"}) -> (tensor<4x3xf32> {ag.name = "y"}) {
  %r = ag.workgroup_region ins(%l : tensor<1x4xi32>) -> (tensor<4x3xf32>) {
  ^bb0(%a: tensor<1x4xi32>):
    %f = ag.reshape %a : tensor<1x4xi32> -> tensor<4xi32>
    %h = ag.one_hot %f : tensor<4xi32> -> tensor<4x3xf32>
    ag.yield %h : tensor<4x3xf32>
  }
  ag.return %r : tensor<4x3xf32>
}
