ag.forward @f(%t: tensor<10x4xf32> {ag.name = "t"}, %i: tensor<3xi32> {ag.name = "i"}) -> () {
  %0 = ag.get_rows %t, %i : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x10xf32>
  ag.return
}
