ag.forward @wide(%x: tensor<1x8xf32> {ag.name = "x"}, %w: tensor<8x8xf32> {ag.name = "w"},
                 %v: tensor<4x8xf32> {ag.name = "v"})
    -> (tensor<4x8xf32> {ag.name = "y"}) {
  %m = ag.matmul %x, %w : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  %s = ag.add %v, %m : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  ag.return %s : tensor<4x8xf32>
}
