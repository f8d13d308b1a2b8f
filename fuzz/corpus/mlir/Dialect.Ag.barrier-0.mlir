func.func @schedule() {
  ag.barrier
  ag.barrier
  return
}
