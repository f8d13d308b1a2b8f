ag.forward @splat_both(%v: tensor<7x7xf32> {ag.name = "v"}) -> (tensor<7x7xf32> {ag.name = "y"}) {
  %c = ag.constant dense<5.000000e-01> : tensor<5x7xf32>
  %k = ag.constant dense<3.000000e+00> : tensor<7x7xf32>
  %m = ag.matmul %c, %c {transpose_a} : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<7x7xf32>
  %a = ag.mul %m, %k : (tensor<7x7xf32>, tensor<7x7xf32>) -> tensor<7x7xf32>
  %s = ag.sub %a, %v : (tensor<7x7xf32>, tensor<7x7xf32>) -> tensor<7x7xf32>
  ag.return %s : tensor<7x7xf32>
}
