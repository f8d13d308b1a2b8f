ag.forward @f() -> () {
  %0 = ag.read_weight @missing : tensor<2xf32>
  ag.return
}
