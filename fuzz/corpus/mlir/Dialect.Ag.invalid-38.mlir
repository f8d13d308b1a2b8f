ag.forward @f() -> () {
  %0 = ag.upload constant : tensor<2xf32>
  ag.return
}
