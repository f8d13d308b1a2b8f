ag.weight @w trainable : tensor<2xf32>
ag.weight @b trainable : tensor<2xf32>
ag.param_pack @p weights([@w, @b]) offsets([0, 2]) size(4) groups([0, 1])
