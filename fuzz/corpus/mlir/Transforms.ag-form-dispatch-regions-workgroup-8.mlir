ag.forward @classifier(%z: tensor<16x5xf32> {ag.name = "z"}, %l: tensor<16xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<16x5xf32> {ag.name = "g"}, tensor<2xi32> {ag.name = "status"}) {
  %s:2 = ag.check_indices %l {bound = 5 : i64, op = "ag.cross_entropy"} : tensor<16xi32> -> (tensor<2xi32>, tensor<f32>)
  %loss = ag.cross_entropy %z, %l : (tensor<16x5xf32>, tensor<16xi32>) -> tensor<f32>
  %p = ag.softmax %z axis = 1 : tensor<16x5xf32>
  %oh = ag.one_hot %l : tensor<16xi32> -> tensor<16x5xf32>
  %g = ag.sub %p, %oh : (tensor<16x5xf32>, tensor<16x5xf32>) -> tensor<16x5xf32>
  ag.return %loss, %g, %s#0 : tensor<f32>, tensor<16x5xf32>, tensor<2xi32>
}
