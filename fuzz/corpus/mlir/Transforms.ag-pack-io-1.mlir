ag.forward @empty() -> () {
  ag.return
}
