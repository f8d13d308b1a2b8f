ag.forward @f(%i: tensor<4xi32> {ag.name = "i"}) -> (tensor<2xi32> {ag.name = "s"}) {
  %s, %p = ag.check_indices %i {bound = -1 : i64, op = "ag.get_rows"} : tensor<4xi32> -> (tensor<2xi32>, tensor<f32>)
  ag.return %s : tensor<2xi32>
}
