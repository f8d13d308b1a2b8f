ag.forward @f() -> () {
  %u = ag.upload : tensor<?xf32>
  ag.return
}
