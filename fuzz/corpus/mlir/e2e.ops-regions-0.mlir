ag.forward @f(%x: tensor<6x8xf32> {ag.name = "x"}, %row: tensor<8xf32> {ag.name = "row"},
              %col: tensor<6x1xf32> {ag.name = "col"}, %s: tensor<f32> {ag.name = "s"},
              %t: tensor<7xf32> {ag.name = "t"}, %u: tensor<3xf32> {ag.name = "u"},
              %g: tensor<5xf32> {ag.name = "g"})
    -> (tensor<6x8xf32> {ag.name = "chain"}, tensor<7xf32> {ag.name = "tail"},
        tensor<3xf32> {ag.name = "tiny"}, tensor<1x5xf32> {ag.name = "odd"}) {
  %one = ag.constant dense<1.0> : tensor<f32>
  %ss = ag.square %s : tensor<f32>
  %s1 = ag.add %ss, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %0 = ag.add %x, %row : (tensor<6x8xf32>, tensor<8xf32>) -> tensor<6x8xf32>
  %1 = ag.tanh %0 : tensor<6x8xf32>
  %2 = ag.mul %1, %col : (tensor<6x8xf32>, tensor<6x1xf32>) -> tensor<6x8xf32>
  %3 = ag.sub %2, %1 : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  %4 = ag.div %3, %s1 : (tensor<6x8xf32>, tensor<f32>) -> tensor<6x8xf32>
  %5 = ag.exp %t : tensor<7xf32>
  %6 = ag.mul %5, %s : (tensor<7xf32>, tensor<f32>) -> tensor<7xf32>
  %7 = ag.sigmoid %u : tensor<3xf32>
  %c = ag.constant dense<2.0> : tensor<1x1xf32>
  %8 = ag.maximum %g, %c : (tensor<5xf32>, tensor<1x1xf32>) -> tensor<1x5xf32>
  %9 = ag.relu %8 : tensor<1x5xf32>
  ag.return %4, %6, %7, %9 : tensor<6x8xf32>, tensor<7xf32>, tensor<3xf32>, tensor<1x5xf32>
}
