ag.forward @shared(%x: tensor<16xf32> {ag.name = "x"}, %s: tensor<f32> {ag.name = "s"})
    -> (tensor<16xf32> {ag.name = "y"}) {
  %e = ag.exp %x : tensor<16xf32>
  %a = ag.mul %e, %x : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %b = ag.add %e, %x : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %ss = ag.square %s : tensor<f32>
  %c = ag.div %a, %b : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %d = ag.mul %c, %ss : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %p = ag.probe "d" %d : tensor<16xf32>
  %n = ag.neg %p : tensor<16xf32>
  ag.return %n : tensor<16xf32>
}
