func.func @bound() attributes {ag.index_checks = [#ag.index_check<output = "s", op = "ag.get_rows", input = "ids", bound = -1, loc = "">]} {
  return
}
