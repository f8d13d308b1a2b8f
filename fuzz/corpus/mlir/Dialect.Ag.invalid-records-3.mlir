func.func @unnamed() attributes {ag.index_checks = [#ag.index_check<output = "", op = "ag.get_rows", input = "ids", bound = 3, loc = "">]} {
  return
}
