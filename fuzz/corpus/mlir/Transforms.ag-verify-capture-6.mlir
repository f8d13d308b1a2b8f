module {
  ag.weight @a trainable : tensor<2x3xf32> = dense<0.25>
  ag.weight @b : tensor<3xf32>
}
