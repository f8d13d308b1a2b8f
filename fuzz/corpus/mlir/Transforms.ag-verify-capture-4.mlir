func.func @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  ag.download %x : tensor<2xf32>
  return %x : tensor<2xf32>
}
ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %y = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  ag.return %y : tensor<2xf32>
}
