ag.weight @b : tensor<8xf32> = dense<0.5>
ag.forward @layer(%x: tensor<4x8xf32> {ag.name = "x"}, %w: tensor<8x8xf32> {ag.name = "w"})
    -> (tensor<4x8xf32> {ag.name = "y"}, tensor<4x8xf32> {ag.name = "h"}) {
  %b = ag.read_weight @b : tensor<8xf32>
  %one = ag.constant dense<1.0> : tensor<4x8xf32>
  %m = ag.matmul %x, %w {transpose_b} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %bb = ag.mul %b, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %a = ag.add %m, %bb : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %t = ag.tanh %a : tensor<4x8xf32>
  %s = ag.square %t : tensor<4x8xf32>
  %d = ag.sub %one, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = ag.mul %d, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  ag.return %e, %t : tensor<4x8xf32>, tensor<4x8xf32>
}
