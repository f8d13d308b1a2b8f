ag.weight @emb : tensor<20x8xf32> = dense<[[0.61, -0.42, 0.13, 0.97, -0.25, 0.48, -0.77, 0.05], [0.33, 0.81, -0.66, -0.14, 0.29, -0.93, 0.57, 0.18], [-0.71, 0.26, 0.44, -0.38, 0.92, 0.07, -0.19, -0.55], [0.15, -0.87, 0.68, 0.21, -0.46, 0.73, 0.39, -0.02], [-0.28, 0.59, -0.11, 0.84, 0.36, -0.64, -0.07, 0.95], [0.77, 0.03, -0.52, -0.89, 0.11, 0.42, 0.66, -0.31], [-0.09, -0.35, 0.91, 0.47, -0.72, -0.16, 0.24, 0.58], [0.52, 0.69, 0.27, -0.61, -0.05, 0.88, -0.43, 0.12], [-0.94, 0.17, -0.29, 0.06, 0.63, 0.35, 0.79, -0.68], [0.41, -0.58, 0.74, 0.32, 0.19, -0.83, -0.26, 0.47], [0.08, 0.45, -0.97, 0.55, -0.34, 0.21, 0.62, -0.13], [-0.47, -0.12, 0.36, -0.76, 0.85, 0.58, -0.01, 0.29], [0.64, 0.94, 0.02, 0.18, -0.57, -0.39, 0.14, 0.86], [-0.18, 0.28, 0.83, -0.44, -0.92, 0.67, 0.51, -0.36], [0.26, -0.69, -0.37, 0.99, 0.43, -0.08, -0.62, 0.71], [0.89, 0.11, 0.58, -0.23, 0.04, -0.51, 0.37, -0.84], [-0.53, 0.72, -0.16, 0.31, 0.66, 0.25, -0.88, 0.09], [0.37, -0.21, 0.49, -0.67, -0.13, 0.96, 0.03, 0.54], [-0.62, 0.38, 0.07, 0.76, -0.29, -0.45, 0.81, -0.17], [0.12, -0.96, -0.24, 0.39, 0.58, 0.16, -0.33, 0.63]]>

ag.forward @loss(%logits: tensor<16x10xf32> {ag.name = "logits"}, %labels: tensor<16xi32> {ag.name = "labels"},
                 %ids: tensor<12xi32> {ag.name = "ids"}, %tab: tensor<20x5xf32> {ag.name = "tab"})
    -> (tensor<f32> {ag.name = "ce"}, tensor<f32> {ag.name = "ce_big"},
        tensor<12x8xf32> {ag.name = "rows_w"}, tensor<12x5xf32> {ag.name = "rows_in"},
        tensor<12x12xf32> {ag.name = "proj"}) {
  %k = ag.constant dense<100.0> : tensor<1xf32>
  %emb = ag.read_weight @emb : tensor<20x8xf32>
  %0 = ag.cross_entropy %logits, %labels : (tensor<16x10xf32>, tensor<16xi32>) -> tensor<f32>
  %big = ag.mul %logits, %k : (tensor<16x10xf32>, tensor<1xf32>) -> tensor<16x10xf32>
  %1 = ag.cross_entropy %big, %labels : (tensor<16x10xf32>, tensor<16xi32>) -> tensor<f32>
  %2 = ag.get_rows %emb, %ids : (tensor<20x8xf32>, tensor<12xi32>) -> tensor<12x8xf32>
  %3 = ag.get_rows %tab, %ids : (tensor<20x5xf32>, tensor<12xi32>) -> tensor<12x5xf32>
  %4 = ag.matmul %2, %2 {transpose_b} : (tensor<12x8xf32>, tensor<12x8xf32>) -> tensor<12x12xf32>
  ag.return %0, %1, %2, %3, %4 : tensor<f32>, tensor<f32>, tensor<12x8xf32>, tensor<12x5xf32>, tensor<12x12xf32>
}

ag.weight @small : tensor<4x2xf32> = dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]>
ag.weight @fixed_logits : tensor<2x3xf32> = dense<[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]>

ag.forward @clamped(%labels: tensor<2xi32> {ag.name = "labels"}, %ids: tensor<4xi32> {ag.name = "ids"})
    -> (tensor<f32> {ag.name = "ce"}, tensor<4x2xf32> {ag.name = "rows"}) {
  %l = ag.read_weight @fixed_logits : tensor<2x3xf32>
  %t = ag.read_weight @small : tensor<4x2xf32>
  %0 = ag.cross_entropy %l, %labels : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<f32>
  %1 = ag.get_rows %t, %ids : (tensor<4x2xf32>, tensor<4xi32>) -> tensor<4x2xf32>
  ag.return %0, %1 : tensor<f32>, tensor<4x2xf32>
}
