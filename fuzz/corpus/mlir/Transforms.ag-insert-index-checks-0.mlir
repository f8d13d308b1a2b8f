ag.forward @f(%x: tensor<4x3xf32> {ag.name = "x"}, %labels: tensor<4xi32> {ag.name = "labels"},
              %t: tensor<7x2xf32> {ag.name = "t"}, %ids: tensor<4xi32> {ag.name = "ids"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<4x3xf32> {ag.name = "hot"},
        tensor<4x2xf32> {ag.name = "rows"}, tensor<4x2xf32> {ag.name = "again"}) {
  %l = ag.cross_entropy %x, %labels : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<f32>
  %h = ag.one_hot %labels : tensor<4xi32> -> tensor<4x3xf32>
  %r = ag.get_rows %t, %labels : (tensor<7x2xf32>, tensor<4xi32>) -> tensor<4x2xf32>
  %a = ag.get_rows %t, %ids : (tensor<7x2xf32>, tensor<4xi32>) -> tensor<4x2xf32>
  ag.return %l, %h, %r, %a : tensor<f32>, tensor<4x3xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}
