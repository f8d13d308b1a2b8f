ag.forward @large(%a: tensor<5000xf32> {ag.name = "a"}, %b: tensor<8xf32> {ag.name = "b"})
    -> (tensor<f32> {ag.name = "s"}, tensor<f32> {ag.name = "t"}) {
  %e = ag.exp %a : tensor<5000xf32>
  %s = ag.sum %e : tensor<5000xf32> -> tensor<f32>
  %m = ag.max %b : tensor<8xf32> -> tensor<f32>
  %d = ag.sub %b, %m : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %t = ag.sum %d : tensor<8xf32> -> tensor<f32>
  ag.return %s, %t : tensor<f32>, tensor<f32>
}
