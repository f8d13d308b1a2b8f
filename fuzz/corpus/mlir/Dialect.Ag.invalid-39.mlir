ag.forward @f() -> () {
  %0 = "ag.upload"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<2xf32>
  ag.return
}
