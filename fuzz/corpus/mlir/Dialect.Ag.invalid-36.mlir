ag.weight @w : tensor<4xf32>
ag.forward @f() -> () {
  %0 = ag.read_weight @w : tensor<2x2xf32>
  ag.return
}
