ag.forward @f() -> () {
  %0 = "ag.concat"() <{axis = 0 : i64}> : () -> tensor<2xf32>
  ag.return
}
