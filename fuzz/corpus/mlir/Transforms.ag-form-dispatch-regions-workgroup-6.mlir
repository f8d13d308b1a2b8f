ag.forward @largest(%x: tensor<1024x64xf32> {ag.name = "x"}, %w: tensor<64x64xf32> {ag.name = "w"},
                    %h: tensor<1024x8xf32> {ag.name = "h"})
    -> (tensor<1024x64xf32> {ag.name = "y"}, tensor<f32> {ag.name = "m"}) {
  %y = ag.matmul %x, %w {transpose_b} : (tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<1024x64xf32>
  %e = ag.exp %h : tensor<1024x8xf32>
  %r = ag.sum %e axis = 1 : tensor<1024x8xf32> -> tensor<1024xf32>
  %m = ag.mean %r : tensor<1024xf32> -> tensor<f32>
  ag.return %y, %m : tensor<1024x64xf32>, tensor<f32>
}
