ag.forward @f(%i: tensor<4xi32> {ag.name = "i"}) -> (tensor<4xi32> {ag.name = "s"}) attributes {ag.index_checks = [{bound = 3 : i64, op = "ag.get_rows"}]} {
  ag.return %i : tensor<4xi32>
}
