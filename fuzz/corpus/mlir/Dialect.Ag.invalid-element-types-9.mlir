ag.weight @w trainable : tensor<2xcomplex<f32>>
