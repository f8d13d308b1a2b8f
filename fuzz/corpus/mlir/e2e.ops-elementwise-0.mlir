ag.forward @f(%a: tensor<3x5xf32> {ag.name = "a"}, %b: tensor<5xf32> {ag.name = "b"},
              %c: tensor<3x1xf32> {ag.name = "c"})
    -> (tensor<3x5xf32> {ag.name = "mn_ab"}, tensor<3x5xf32> {ag.name = "mn_ba"},
        tensor<3x5xf32> {ag.name = "mx_ab"}, tensor<3x5xf32> {ag.name = "mx_ba"},
        tensor<3x5xf32> {ag.name = "mn_cb"}, tensor<3x5xf32> {ag.name = "mx_cb"},
        tensor<3x5xf32> {ag.name = "mn_nan"}, tensor<3x5xf32> {ag.name = "mx_nan"},
        tensor<3x5xf32> {ag.name = "clamp"}, tensor<5xf32> {ag.name = "clamp_nan"},
        tensor<2x3x5xf32> {ag.name = "bc_b"}, tensor<2x3x5xf32> {ag.name = "bc_c"}) {
  %nan = ag.constant dense<[0x7FC00000, 2.0, 0x7FC00000, -2.0, 0.5]> : tensor<5xf32>
  %three = ag.constant dense<3.0> : tensor<1xf32>
  %0 = ag.minimum %a, %b : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %1 = ag.minimum %b, %a : (tensor<5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %2 = ag.maximum %a, %b : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %3 = ag.maximum %b, %a : (tensor<5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %4 = ag.minimum %c, %b : (tensor<3x1xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %5 = ag.maximum %b, %c : (tensor<5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
  %6 = ag.minimum %nan, %a : (tensor<5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %7 = ag.maximum %nan, %a : (tensor<5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = ag.mul %a, %three : (tensor<3x5xf32>, tensor<1xf32>) -> tensor<3x5xf32>
  %8 = ag.clamp %s min = -0.25 max = 0.5 : tensor<3x5xf32>
  %9 = ag.clamp %nan min = -0.25 max = 0.5 : tensor<5xf32>
  %10 = ag.broadcast_to %b : tensor<5xf32> -> tensor<2x3x5xf32>
  %11 = ag.broadcast_to %c : tensor<3x1xf32> -> tensor<2x3x5xf32>
  ag.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>,
        tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>,
        tensor<3x5xf32>, tensor<5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>
}
