ag.forward @diamond(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %a = ag.exp %x : tensor<4xf32>
  %b = ag.neg %x : tensor<4xf32>
  %c = ag.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ag.return %c : tensor<4xf32>
}

ag.forward @war(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %a = ag.exp %x : tensor<4xf32>
  %b = ag.exp %a : tensor<4xf32>
  %c = ag.neg %x : tensor<4xf32>
  %d = ag.add %b, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ag.return %d : tensor<4xf32>
}
