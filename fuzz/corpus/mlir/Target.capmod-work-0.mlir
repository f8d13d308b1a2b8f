ag.weight @w : tensor<256x256xf32> = #ag.init<linear, fan_in = 256, seed = 1>
ag.forward @heavy(%x: tensor<128x256xf32> {ag.name = "x"}) -> (tensor<128x256xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<256x256xf32>
  %y = ag.matmul %x, %w {transpose_b} : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  ag.return %y : tensor<128x256xf32>
}

ag.forward @light(%x: tensor<8xf32> {ag.name = "x"}) -> (tensor<8xf32> {ag.name = "y"}) {
  %y = ag.neg %x : tensor<8xf32>
  ag.return %y : tensor<8xf32>
}
