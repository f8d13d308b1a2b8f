ag.forward @f(%x: tensor<6xf32> {ag.name = "x"}) -> () {
  %0 = ag.matmul %x, %x : (tensor<6xf32>, tensor<6xf32>) -> tensor<1x1xf32>
  ag.return
}
