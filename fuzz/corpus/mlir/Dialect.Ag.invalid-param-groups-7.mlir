ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(2) groups([-1])
