ag.forward @f(%x: tensor<8x1024xf32> {ag.name = "x"}) -> (tensor<1024xf32> {ag.name = "s"}) {
  %s = ag.sum %x axis = 0 {ag.kernel_config = #ag.two_pass<chunk = 256, parts = 4>} : tensor<8x1024xf32> -> tensor<1024xf32>
  ag.return %s : tensor<1024xf32>
}
