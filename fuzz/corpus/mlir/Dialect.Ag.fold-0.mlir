ag.forward @folds() -> (tensor<4xf32> {ag.name = "a"}, tensor<2x2xf32> {ag.name = "b"},
                        tensor<f32> {ag.name = "e"}) {
  %one = ag.constant dense<1.0> : tensor<f32>
  %half = ag.constant dense<0.5> : tensor<f32>
  %two = ag.constant dense<2.0> : tensor<4xf32>
  %s = ag.add %one, %half : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %p = ag.mul %s, %half : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %q = ag.div %p, %two : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %r = ag.sub %q, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %n = ag.neg %r : tensor<4xf32>
  %m = ag.sub %r, %n : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %three = ag.add %one, %two : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %rs = ag.reshape %three : tensor<4xf32> -> tensor<2x2xf32>
  %bc = ag.broadcast_to %one : tensor<f32> -> tensor<2x2xf32>
  %b = ag.mul %rs, %bc : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %e = ag.exp %one : tensor<f32>
  ag.return %m, %b, %e : tensor<4xf32>, tensor<2x2xf32>, tensor<f32>
}
