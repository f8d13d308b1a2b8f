ag.weight @w trainable : tensor<4xf32>
ag.weight @v trainable : tensor<2xf32>
ag.param_pack @p weights([@w, @v]) offsets([0, 2]) size(4)
