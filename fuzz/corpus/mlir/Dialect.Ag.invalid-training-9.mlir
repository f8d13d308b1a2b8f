ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(2)
ag.forward @f(%g: tensor<2xf32> {ag.name = "g"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %p = ag.pack_grads @p(%g, %g) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  ag.return %p : tensor<2xf32>
}
