ag.forward @head(%v: tensor<64xf32> {ag.name = "v"}, %ret: tensor<64xf32> {ag.name = "ret"},
                 %x: tensor<64x64xf32> {ag.name = "x"})
    -> (tensor<f32> {ag.name = "l"}, tensor<f32> {ag.name = "m"}, tensor<64xf32> {ag.name = "g"},
        tensor<64x64xf32> {ag.name = "t"}) {
  %mm = ag.matmul %x, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = ag.tanh %mm : tensor<64x64xf32>
  %se = ag.mse %v, %ret : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
  %e = ag.exp %v : tensor<64xf32>
  %m = ag.mean %e : tensor<64xf32> -> tensor<f32>
  %d = ag.sub %v, %ret : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %g = ag.mul %d, %m : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  ag.return %se, %m, %g, %t : tensor<f32>, tensor<f32>, tensor<64xf32>, tensor<64x64xf32>
}
