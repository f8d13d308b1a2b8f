ag.weight @w : tensor<3x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]>
ag.weight @b : tensor<2xf32> = #ag.init<zeros>

ag.forward @main() -> (tensor<2x2xf32> {ag.name = "y"}, tensor<f32> {ag.name = "s"},
                       tensor<2x1xf32> {ag.name = "m"}, tensor<2x3xf32> {ag.name = "r"},
                       tensor<2x2xf32> {ag.name = "t"}, tensor<10xf32> {ag.name = "long"}) {
  %a = ag.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %w = ag.read_weight @w : tensor<3x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %mm = ag.matmul %a, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %y0 = ag.add %mm, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %y = ag.probe "h" %y0 : tensor<2x2xf32>
  %s = ag.sum %y : tensor<2x2xf32> -> tensor<f32>
  %m = ag.mean %a axis = -1 keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  %v = ag.constant dense<[[-1.0, 1.5, 0.0], [0x7FC00000, -2.0, 2.0]]> : tensor<2x3xf32>
  %r = ag.relu %v : tensor<2x3xf32>
  %big = ag.constant dense<[[100.0, -100.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %th = ag.tanh %big : tensor<2x2xf32>
  %sg = ag.sigmoid %big : tensor<2x2xf32>
  %half = ag.constant dense<[[1.0, 1.0], [0.0, 0.0]]> : tensor<2x2xf32>
  %t0 = ag.mul %th, %half : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %one = ag.constant dense<1.0> : tensor<f32>
  %inv = ag.sub %one, %half : (tensor<f32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %t1 = ag.mul %sg, %inv : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %t = ag.add %t0, %t1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %long = ag.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]> : tensor<10xf32>
  ag.return %y, %s, %m, %r, %t, %long : tensor<2x2xf32>, tensor<f32>, tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<10xf32>
}

ag.forward @make_w() -> (tensor<3x2xf32> {ag.name = "w"}) {
  %w = ag.read_weight @w : tensor<3x2xf32>
  %two = ag.constant dense<2.0> : tensor<f32>
  %w2 = ag.mul %w, %two : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  ag.return %w2 : tensor<3x2xf32>
}
