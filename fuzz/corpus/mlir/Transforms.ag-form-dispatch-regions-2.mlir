ag.forward @two(%x: tensor<4x8xf32> {ag.name = "x"}, %w: tensor<8x8xf32> {ag.name = "w"},
                %v: tensor<4x8xf32> {ag.name = "v"})
    -> (tensor<4x8xf32> {ag.name = "y"}) {
  %r = ag.relu %x : tensor<4x8xf32>
  %m = ag.matmul %r, %w {transpose_b} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %n = ag.matmul %v, %w {transpose_b} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = ag.add %m, %n : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  ag.return %s : tensor<4x8xf32>
}
