ag.weight @p : tensor<2x3xf32> = dense<1.0>
ag.weight @t : tensor<2x3xf32> = dense<0.0>
ag.forward @soft_update(%tau: tensor<f32> {ag.name = "tau"}) -> () {
  %p = ag.read_weight @p : tensor<2x3xf32>
  %t = ag.read_weight @t : tensor<2x3xf32>
  %d = ag.sub %p, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = ag.mul %d, %tau : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %new = ag.add %t, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ag.assign_weight @t, %new : tensor<2x3xf32>
  ag.assign_weight @p, %t : tensor<2x3xf32>
  ag.return
}
