ag.forward @head(%z: tensor<8xf32> {ag.name = "z"}, %t: tensor<8xf32> {ag.name = "t"})
    -> (tensor<f32> {ag.name = "l"}, tensor<8xf32> {ag.name = "g"}) {
  %l, %g = ag.workgroup_region ins(%z, %t : tensor<8xf32>, tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
    %0 = ag.mse %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
    %1 = ag.sub %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %2 = ag.mul %1, %0 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    ag.yield %0, %2 : tensor<f32>, tensor<8xf32>
  }
  ag.return %l, %g : tensor<f32>, tensor<8xf32>
}
