func.func @dict_probe() attributes {ag.probes = [{buffer = #ag.buffer<scratch>, segment = #ag.segment<"h", [2], f32, offset = 0>}]} {
  return
}
