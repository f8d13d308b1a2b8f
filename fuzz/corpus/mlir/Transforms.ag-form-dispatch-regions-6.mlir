ag.forward @bias_grads(%x: tensor<6x4xf32> {ag.name = "x"}, %d: tensor<6x5xf32> {ag.name = "d"})
    -> (tensor<4x5xf32> {ag.name = "w"}, tensor<4xf32> {ag.name = "b"}, tensor<4x5xf32> {ag.name = "t"},
        tensor<4xf32> {ag.name = "tb"}, tensor<5xf32> {ag.name = "r"}) {
  %b = ag.sum %x axis = 0 : tensor<6x4xf32> -> tensor<4xf32>
  %w = ag.matmul %x, %d {transpose_a} : (tensor<6x4xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  %xn = ag.neg %x : tensor<6x4xf32>
  %m = ag.matmul %xn, %d {transpose_a} : (tensor<6x4xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  %t = ag.tanh %m : tensor<4x5xf32>
  %tb = ag.sum %xn axis = 0 : tensor<6x4xf32> -> tensor<4xf32>
  %r = ag.sum %d axis = 0 : tensor<6x5xf32> -> tensor<5xf32>
  ag.return %w, %b, %t, %tb, %r : tensor<4x5xf32>, tensor<4xf32>, tensor<4x5xf32>, tensor<4xf32>, tensor<5xf32>
}
