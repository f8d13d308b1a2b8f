ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %e = ag.eager "fft" (%x) : (tensor<2xf32>) -> tensor<2xcomplex<f32>>
  ag.return %x : tensor<2xf32>
}
