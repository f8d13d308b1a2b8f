module {
  module @inner {
    ag.weight @w : tensor<2xf32>
    ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
      ag.return %x : tensor<2xf32>
    }
  }
  module {
    ag.forward @g(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
      ag.return %x : tensor<2xf32>
    }
  }
}
