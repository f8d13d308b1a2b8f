ag.weight @lin.weight trainable : tensor<33x7xf32> = #ag.init<linear, fan_in = 7, seed = 1>
ag.weight @lin.bias trainable : tensor<33xf32> = #ag.init<linear, fan_in = 7, seed = 2>
ag.weight @emb : tensor<9x5xf32> = #ag.init<normal, mean = 0.5, std = 2.0, seed = 3>
ag.weight @u : tensor<17xf32> = #ag.init<uniform, low = -3.0, high = 1.0, seed = 4>
ag.weight @c : tensor<6xf32> = #ag.init<constant, value = -0.75>
ag.weight @z : tensor<6xf32> = #ag.init<zeros>
ag.weight @big : tensor<4096x1024xf32> = dense<0.5>
ag.weight @unset : tensor<2xf32>

ag.forward @init() -> (tensor<33x7xf32> {ag.name = "lin_w"}, tensor<33xf32> {ag.name = "lin_b"},
                       tensor<9x5xf32> {ag.name = "emb"}, tensor<17xf32> {ag.name = "u"},
                       tensor<6xf32> {ag.name = "c"}, tensor<6xf32> {ag.name = "z"}) {
  %w = ag.read_weight @lin.weight : tensor<33x7xf32>
  %b = ag.read_weight @lin.bias : tensor<33xf32>
  %e = ag.read_weight @emb : tensor<9x5xf32>
  %u = ag.read_weight @u : tensor<17xf32>
  %c = ag.read_weight @c : tensor<6xf32>
  %z = ag.read_weight @z : tensor<6xf32>
  ag.return %w, %b, %e, %u, %c, %z : tensor<33x7xf32>, tensor<33xf32>, tensor<9x5xf32>, tensor<17xf32>, tensor<6xf32>, tensor<6xf32>
}

ag.forward @sum_big() -> (tensor<f32> {ag.name = "s"}) {
  %w = ag.read_weight @big : tensor<4096x1024xf32>
  %s = ag.sum %w : tensor<4096x1024xf32> -> tensor<f32>
  ag.return %s : tensor<f32>
}

ag.forward @read_unset() -> (tensor<2xf32> {ag.name = "y"}) {
  %w = ag.read_weight @unset : tensor<2xf32>
  ag.return %w : tensor<2xf32>
}
