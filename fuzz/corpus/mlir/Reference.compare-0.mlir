ag.weight @w : tensor<2xf32> = dense<[4.0, 9.0]>

ag.forward @net() -> (tensor<2xf32> {ag.name = "y"}, tensor<f32> {ag.name = "s"}) {
  %w = ag.read_weight @w : tensor<2xf32>
  %y = ag.sqrt %w : tensor<2xf32>
  %s = ag.sum %y : tensor<2xf32> -> tensor<f32>
  ag.return %y, %s : tensor<2xf32>, tensor<f32>
}

ag.forward @wide() -> (tensor<3xf32> {ag.name = "y"}, tensor<f32> {ag.name = "s"}) {
  %y = ag.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %s = ag.constant dense<4.0> : tensor<f32>
  ag.return %y, %s : tensor<3xf32>, tensor<f32>
}

ag.forward @params() -> (tensor<2xf32> {ag.name = "far"}, tensor<2xf32> {ag.name = "neg"}) {
  %far = ag.constant dense<[4.4, 9.0]> : tensor<2xf32>
  %neg = ag.constant dense<[-1.0, 9.0]> : tensor<2xf32>
  ag.return %far, %neg : tensor<2xf32>, tensor<2xf32>
}
