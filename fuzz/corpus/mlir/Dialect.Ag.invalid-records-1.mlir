func.func @dict_train() attributes {ag.train = {pack = @p}} {
  return
}
