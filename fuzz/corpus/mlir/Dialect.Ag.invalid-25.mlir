ag.forward @f() -> () {
  %u = ag.eager "k" () : () -> tensor<?xf32>
  %0 = ag.tanh %u : tensor<?xf32>
  ag.return
}
