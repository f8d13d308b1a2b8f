ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([]) offsets([]) size(2)
