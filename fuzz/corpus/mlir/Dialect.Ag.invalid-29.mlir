ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> () {
  %0 = ag.matmul %x, %x {transpose_a, transpose_b} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
  ag.return
}
