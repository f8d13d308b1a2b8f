ag.forward @f(%x: tensor<2x1024xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "s"}, tensor<2x4xf32> {ag.name = "t"}) {
  %c = ag.constant dense<0.5> : tensor<1024x1024xf32>
  %y = ag.matmul %x, %c : (tensor<2x1024xf32>, tensor<1024x1024xf32>) -> tensor<2x1024xf32>
  %s = ag.sum %y : tensor<2x1024xf32> -> tensor<f32>
  %k = ag.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y4 = ag.slice %y axis = 1 start = 0 end = 4 : tensor<2x1024xf32> -> tensor<2x4xf32>
  %t = ag.add %y4, %k : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  ag.return %s, %t : tensor<f32>, tensor<2x4xf32>
}
