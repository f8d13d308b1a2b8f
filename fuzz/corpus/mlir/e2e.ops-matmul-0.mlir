ag.forward @f(%a: tensor<12x16xf32> {ag.name = "a"}, %w: tensor<20x16xf32> {ag.name = "w"},
              %at: tensor<16x12xf32> {ag.name = "at"}, %b: tensor<16x20xf32> {ag.name = "b"},
              %row: tensor<1x7xf32> {ag.name = "row"}, %col: tensor<7x1xf32> {ag.name = "col"},
              %k1: tensor<5x1xf32> {ag.name = "k1"}, %k1t: tensor<1x6xf32> {ag.name = "k1t"},
              %ka: tensor<2x70000xf32> {ag.name = "ka"}, %kb: tensor<3x70000xf32> {ag.name = "kb"})
    -> (tensor<12x20xf32> {ag.name = "awt"}, tensor<12x20xf32> {ag.name = "atb"},
        tensor<12x20xf32> {ag.name = "ab"}, tensor<7x7xf32> {ag.name = "odd"},
        tensor<7x7xf32> {ag.name = "oddt"}, tensor<1x1xf32> {ag.name = "dot"},
        tensor<7x7xf32> {ag.name = "outer"}, tensor<5x6xf32> {ag.name = "k1_ab"},
        tensor<6x5xf32> {ag.name = "k1_tt"}, tensor<2x3xf32> {ag.name = "klong"}) {
  %0 = ag.matmul %a, %w {transpose_b} : (tensor<12x16xf32>, tensor<20x16xf32>) -> tensor<12x20xf32>
  %1 = ag.matmul %at, %b {transpose_a} : (tensor<16x12xf32>, tensor<16x20xf32>) -> tensor<12x20xf32>
  %2 = ag.matmul %a, %b : (tensor<12x16xf32>, tensor<16x20xf32>) -> tensor<12x20xf32>
  %3 = ag.matmul %col, %row : (tensor<7x1xf32>, tensor<1x7xf32>) -> tensor<7x7xf32>
  %4 = ag.matmul %row, %row {transpose_a} : (tensor<1x7xf32>, tensor<1x7xf32>) -> tensor<7x7xf32>
  %5 = ag.matmul %row, %col : (tensor<1x7xf32>, tensor<7x1xf32>) -> tensor<1x1xf32>
  %6 = ag.matmul %col, %col {transpose_b} : (tensor<7x1xf32>, tensor<7x1xf32>) -> tensor<7x7xf32>
  %7 = ag.matmul %k1, %k1t : (tensor<5x1xf32>, tensor<1x6xf32>) -> tensor<5x6xf32>
  %8 = ag.matmul %k1t, %k1 {transpose_a, transpose_b} : (tensor<1x6xf32>, tensor<5x1xf32>) -> tensor<6x5xf32>
  %9 = ag.matmul %ka, %kb {transpose_b} : (tensor<2x70000xf32>, tensor<3x70000xf32>) -> tensor<2x3xf32>
  ag.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
      : tensor<12x20xf32>, tensor<12x20xf32>, tensor<12x20xf32>, tensor<7x7xf32>,
        tensor<7x7xf32>, tensor<1x1xf32>, tensor<7x7xf32>, tensor<5x6xf32>,
        tensor<6x5xf32>, tensor<2x3xf32>
}
