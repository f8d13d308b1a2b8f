ag.forward @f(%a: tensor<13x12xf32> {ag.name = "a"}, %w: tensor<10x12xf32> {ag.name = "w"},
              %b: tensor<10xf32> {ag.name = "b"}, %c: tensor<13x1xf32> {ag.name = "c"},
              %s: tensor<f32> {ag.name = "s"}, %at: tensor<12x12xf32> {ag.name = "at"},
              %v: tensor<10x12xf32> {ag.name = "v"}, %u: tensor<20x12xf32> {ag.name = "u"},
              %bias: tensor<20xf32> {ag.name = "bias"}, %y: tensor<13x20xf32> {ag.name = "y"},
              %r1: tensor<1x20xf32> {ag.name = "r1"})
    -> (tensor<13x10xf32> {ag.name = "linear"}, tensor<13x10xf32> {ag.name = "scaled"},
        tensor<12x12xf32> {ag.name = "self"}, tensor<13x20xf32> {ag.name = "vec4"}) {
  %0 = ag.matmul %a, %w {transpose_b} : (tensor<13x12xf32>, tensor<10x12xf32>) -> tensor<13x10xf32>
  %1 = ag.add %0, %b : (tensor<13x10xf32>, tensor<10xf32>) -> tensor<13x10xf32>
  %2 = ag.tanh %1 : tensor<13x10xf32>
  %3 = ag.matmul %a, %v {transpose_b} : (tensor<13x12xf32>, tensor<10x12xf32>) -> tensor<13x10xf32>
  %4 = ag.mul %3, %c : (tensor<13x10xf32>, tensor<13x1xf32>) -> tensor<13x10xf32>
  %5 = ag.sub %4, %s : (tensor<13x10xf32>, tensor<f32>) -> tensor<13x10xf32>
  %6 = ag.matmul %at, %at {transpose_a} : (tensor<12x12xf32>, tensor<12x12xf32>) -> tensor<12x12xf32>
  %7 = ag.add %6, %at : (tensor<12x12xf32>, tensor<12x12xf32>) -> tensor<12x12xf32>
  %8 = ag.matmul %a, %u {transpose_b} : (tensor<13x12xf32>, tensor<20x12xf32>) -> tensor<13x20xf32>
  %9 = ag.add %8, %bias : (tensor<13x20xf32>, tensor<20xf32>) -> tensor<13x20xf32>
  %10 = ag.mul %9, %y : (tensor<13x20xf32>, tensor<13x20xf32>) -> tensor<13x20xf32>
  %11 = ag.sub %10, %r1 : (tensor<13x20xf32>, tensor<1x20xf32>) -> tensor<13x20xf32>
  ag.return %2, %5, %7, %11 : tensor<13x10xf32>, tensor<13x10xf32>, tensor<12x12xf32>, tensor<13x20xf32>
}
