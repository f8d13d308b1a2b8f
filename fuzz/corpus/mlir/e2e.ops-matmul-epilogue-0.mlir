ag.forward @f(%a: tensor<13x12xf32> {ag.name = "a"}, %w: tensor<10x12xf32> {ag.name = "w"},
              %b: tensor<10xf32> {ag.name = "b"}, %c: tensor<13x1xf32> {ag.name = "c"},
              %s: tensor<f32> {ag.name = "s"}, %at: tensor<12x12xf32> {ag.name = "at"},
              %v: tensor<10x12xf32> {ag.name = "v"})
    -> (tensor<13x10xf32> {ag.name = "linear"}, tensor<13x10xf32> {ag.name = "scaled"},
        tensor<12x12xf32> {ag.name = "self"}) {
  %0 = ag.matmul %a, %w {transpose_b} : (tensor<13x12xf32>, tensor<10x12xf32>) -> tensor<13x10xf32>
  %1 = ag.add %0, %b : (tensor<13x10xf32>, tensor<10xf32>) -> tensor<13x10xf32>
  %2 = ag.tanh %1 : tensor<13x10xf32>
  %3 = ag.matmul %a, %v {transpose_b} : (tensor<13x12xf32>, tensor<10x12xf32>) -> tensor<13x10xf32>
  %4 = ag.mul %3, %c : (tensor<13x10xf32>, tensor<13x1xf32>) -> tensor<13x10xf32>
  %5 = ag.sub %4, %s : (tensor<13x10xf32>, tensor<f32>) -> tensor<13x10xf32>
  %6 = ag.matmul %at, %at {transpose_a} : (tensor<12x12xf32>, tensor<12x12xf32>) -> tensor<12x12xf32>
  %7 = ag.add %6, %at : (tensor<12x12xf32>, tensor<12x12xf32>) -> tensor<12x12xf32>
  ag.return %2, %5, %7 : tensor<13x10xf32>, tensor<13x10xf32>, tensor<12x12xf32>
}
