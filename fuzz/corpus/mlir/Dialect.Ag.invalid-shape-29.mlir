ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %l: tensor<2xi32> {ag.name = "l"}) -> () {
  %0 = ag.scatter_add_rows %x, %l : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<5x4xf32>
  ag.return
}
