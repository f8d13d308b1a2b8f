ag.forward @f(%t: tensor<10x4xf32> {ag.name = "t"}, %i: tensor<3x1xi32> {ag.name = "i"}) -> () {
  %0 = ag.get_rows %t, %i : (tensor<10x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
  ag.return
}
