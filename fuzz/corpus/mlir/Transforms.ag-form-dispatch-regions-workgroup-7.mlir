ag.forward @capped(%x: tensor<2048x64xf32> {ag.name = "x"}, %w: tensor<64x64xf32> {ag.name = "w"},
                   %h: tensor<2048x8xf32> {ag.name = "h"})
    -> (tensor<2048x64xf32> {ag.name = "y"}, tensor<f32> {ag.name = "m"}) {
  %y = ag.matmul %x, %w {transpose_b} : (tensor<2048x64xf32>, tensor<64x64xf32>) -> tensor<2048x64xf32>
  %e = ag.exp %h : tensor<2048x8xf32>
  %r = ag.sum %e axis = 1 : tensor<2048x8xf32> -> tensor<2048xf32>
  %m = ag.mean %r : tensor<2048xf32> -> tensor<f32>
  ag.return %y, %m : tensor<2048x64xf32>, tensor<f32>
}
