ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  %0 = ag.slice %x axis = 1 start = 5 end = 9 : tensor<2x8xf32> -> tensor<2x4xf32>
  ag.return
}
