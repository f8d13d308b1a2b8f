ag.forward @f(%x: tensor<4294967296x4294967296xf32> {ag.name = "x"}) -> (tensor<4294967296x4294967296xf32> {ag.name = "y"}) {
  %y = ag.exp %x : tensor<4294967296x4294967296xf32>
  ag.return %y : tensor<4294967296x4294967296xf32>
}
