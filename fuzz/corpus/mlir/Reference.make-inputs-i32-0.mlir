ag.weight @table : tensor<7x2xf32> = #ag.init<zeros>
ag.weight @none : tensor<0x2xf32> = #ag.init<zeros>

ag.forward @f(%x: tensor<64x5xf32> {ag.name = "x"}, %labels: tensor<64xi32> {ag.name = "labels"},
              %ids: tensor<64xi32> {ag.name = "ids"}, %other: tensor<4xi32> {ag.name = "other"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<f32> {ag.name = "loss3"}, tensor<64x2xf32> {ag.name = "rows"},
        tensor<64xi32> {ag.name = "labels_out"}, tensor<64xi32> {ag.name = "ids_out"}, tensor<4xi32> {ag.name = "other_out"}) {
  %loss = ag.cross_entropy %x, %labels : (tensor<64x5xf32>, tensor<64xi32>) -> tensor<f32>
  %x3 = ag.slice %x axis = 1 start = 0 end = 3 : tensor<64x5xf32> -> tensor<64x3xf32>
  %loss3 = ag.cross_entropy %x3, %ids : (tensor<64x3xf32>, tensor<64xi32>) -> tensor<f32>
  %t = ag.read_weight @table : tensor<7x2xf32>
  %rows = ag.get_rows %t, %ids : (tensor<7x2xf32>, tensor<64xi32>) -> tensor<64x2xf32>
  ag.return %loss, %loss3, %rows, %labels, %ids, %other : tensor<f32>, tensor<f32>, tensor<64x2xf32>, tensor<64xi32>, tensor<64xi32>, tensor<4xi32>
}

ag.forward @empty(%ids: tensor<2xi32> {ag.name = "ids"}) -> (tensor<2x2xf32> {ag.name = "rows"}) {
  %t = ag.read_weight @none : tensor<0x2xf32>
  %rows = ag.get_rows %t, %ids : (tensor<0x2xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  ag.return %rows : tensor<2x2xf32>
}
