ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w, @w]) offsets([0, 4]) size(8)
