ag.forward @f(%i: tensor<2x2xi32> {ag.name = "i"}) -> (tensor<2xi32> {ag.name = "s"}) {
  %s, %p = ag.check_indices %i {bound = 3 : i64, op = "ag.get_rows"} : tensor<2x2xi32> -> (tensor<2xi32>, tensor<f32>)
  ag.return %s : tensor<2xi32>
}
