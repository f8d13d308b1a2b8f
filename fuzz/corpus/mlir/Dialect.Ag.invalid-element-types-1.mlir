ag.forward @f(%x: tensor<2xcomplex<f32>> {ag.name = "x"}) -> () {
  ag.return
}
