ag.forward @f(%a: tensor<2x270000xf32> {ag.name = "a"}, %b: tensor<3x270000xf32> {ag.name = "b"},
              %r: tensor<2x70000xf32> {ag.name = "r"}, %c: tensor<70000x3xf32> {ag.name = "c"},
              %s: tensor<2x30000xf32> {ag.name = "s"}, %e: tensor<2x70000xf32> {ag.name = "e"})
    -> (tensor<2x3xf32> {ag.name = "klong"}, tensor<2xf32> {ag.name = "rowsum"},
        tensor<2xf32> {ag.name = "rowmean"}, tensor<2xf32> {ag.name = "rowmax"},
        tensor<3xf32> {ag.name = "colsum"}, tensor<2x30000xf32> {ag.name = "sm"},
        tensor<2x30000xf32> {ag.name = "lsm"}, tensor<f32> {ag.name = "mse"}) {
  %0 = ag.matmul %a, %b {transpose_b} : (tensor<2x270000xf32>, tensor<3x270000xf32>) -> tensor<2x3xf32>
  %1 = ag.sum %r axis = 1 : tensor<2x70000xf32> -> tensor<2xf32>
  %2 = ag.mean %r axis = -1 : tensor<2x70000xf32> -> tensor<2xf32>
  %3 = ag.max %r axis = 1 : tensor<2x70000xf32> -> tensor<2xf32>
  %4 = ag.sum %c axis = 0 : tensor<70000x3xf32> -> tensor<3xf32>
  %5 = ag.softmax %s axis = -1 : tensor<2x30000xf32>
  %6 = ag.log_softmax %s axis = 1 : tensor<2x30000xf32>
  %7 = ag.mse %r, %e : (tensor<2x70000xf32>, tensor<2x70000xf32>) -> tensor<f32>
  ag.return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<3xf32>, tensor<2x30000xf32>, tensor<2x30000xf32>, tensor<f32>
}
