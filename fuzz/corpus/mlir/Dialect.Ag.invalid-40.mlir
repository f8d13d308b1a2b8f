ag.forward @f() -> () {
  %0 = ag.upload constant : tensor<f32> = "one"
  ag.return
}
