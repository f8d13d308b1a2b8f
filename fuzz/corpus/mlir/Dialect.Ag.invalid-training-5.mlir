ag.param_pack @p weights([@nope]) offsets([0]) size(2)
