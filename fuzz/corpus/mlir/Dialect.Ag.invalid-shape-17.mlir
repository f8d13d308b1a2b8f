ag.forward @f(%x: tensor<2x8xf32> {ag.name = "x"}) -> () {
  %0 = ag.slice %x axis = 4 start = 0 end = 1 : tensor<2x8xf32> -> tensor<2x8xf32>
  ag.return
}
