ag.weight @fc1.weight trainable : tensor<7x3xf32> = #ag.init<linear, fan_in = 3, seed = 1>
ag.weight @fc1.bias trainable : tensor<7xf32> = #ag.init<linear, fan_in = 3, seed = 2>
ag.weight @fc2.weight : tensor<2x7xf32> = #ag.init<linear, fan_in = 7, seed = 3>
ag.weight @actor.0.weight trainable : tensor<7x3xf32> = #ag.init<linear, fan_in = 3, seed = 11>
ag.weight @actor.0.bias trainable : tensor<7xf32> = #ag.init<linear, fan_in = 3, seed = 12>
ag.weight @actor.2.weight trainable : tensor<2x7xf32> = #ag.init<linear, fan_in = 7, seed = 13>
ag.weight @actor.2.bias trainable : tensor<2xf32> = #ag.init<linear, fan_in = 7, seed = 14>
ag.weight @critic.0.weight : tensor<6x5xf32> = #ag.init<linear, fan_in = 5, seed = 21>
ag.weight @critic.0.bias : tensor<6xf32> = #ag.init<linear, fan_in = 5, seed = 22>
ag.weight @critic.2.weight : tensor<1x6xf32> = #ag.init<linear, fan_in = 6, seed = 23>
ag.weight @critic.2.bias : tensor<1xf32> = #ag.init<linear, fan_in = 6, seed = 24>

ag.train_step @frozen_mean(%x: tensor<5x3xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>} {
  %w1 = ag.read_weight @fc1.weight : tensor<7x3xf32>
  %b1 = ag.read_weight @fc1.bias : tensor<7xf32>
  %w2 = ag.read_weight @fc2.weight : tensor<2x7xf32>
  %z1 = ag.matmul %x, %w1 {transpose_b} : (tensor<5x3xf32>, tensor<7x3xf32>) -> tensor<5x7xf32>
  %a1 = ag.add %z1, %b1 : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  %h = ag.relu %a1 : tensor<5x7xf32>
  %out = ag.matmul %h, %w2 {transpose_b} : (tensor<5x7xf32>, tensor<2x7xf32>) -> tensor<5x2xf32>
  %loss = ag.mean %out : tensor<5x2xf32> -> tensor<f32>
  ag.return %loss : tensor<f32>
}

ag.forward @hidden(%x: tensor<5x3xf32> {ag.name = "x"}) -> (tensor<5x7xf32> {ag.name = "h"}) {
  %w1 = ag.read_weight @fc1.weight : tensor<7x3xf32>
  %b1 = ag.read_weight @fc1.bias : tensor<7xf32>
  %z1 = ag.matmul %x, %w1 {transpose_b} : (tensor<5x3xf32>, tensor<7x3xf32>) -> tensor<5x7xf32>
  %a1 = ag.add %z1, %b1 : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  ag.return %a1 : tensor<5x7xf32>
}

ag.train_step @td3_actor(%obs: tensor<5x3xf32> {ag.name = "obs"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>,
                max_grad_norm = 1.0 : f32} {
  %a0w = ag.read_weight @actor.0.weight : tensor<7x3xf32>
  %a0b = ag.read_weight @actor.0.bias : tensor<7xf32>
  %a2w = ag.read_weight @actor.2.weight : tensor<2x7xf32>
  %a2b = ag.read_weight @actor.2.bias : tensor<2xf32>
  %c0w = ag.read_weight @critic.0.weight : tensor<6x5xf32>
  %c0b = ag.read_weight @critic.0.bias : tensor<6xf32>
  %c2w = ag.read_weight @critic.2.weight : tensor<1x6xf32>
  %c2b = ag.read_weight @critic.2.bias : tensor<1xf32>
  %z1 = ag.matmul %obs, %a0w {transpose_b} : (tensor<5x3xf32>, tensor<7x3xf32>) -> tensor<5x7xf32>
  %y1 = ag.add %z1, %a0b : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  %h1 = ag.relu %y1 : tensor<5x7xf32>
  %z2 = ag.matmul %h1, %a2w {transpose_b} : (tensor<5x7xf32>, tensor<2x7xf32>) -> tensor<5x2xf32>
  %y2 = ag.add %z2, %a2b : (tensor<5x2xf32>, tensor<2xf32>) -> tensor<5x2xf32>
  %act = ag.tanh %y2 : tensor<5x2xf32>
  %sa = ag.concat %obs, %act axis = 1 : (tensor<5x3xf32>, tensor<5x2xf32>) -> tensor<5x5xf32>
  %q1 = ag.matmul %sa, %c0w {transpose_b} : (tensor<5x5xf32>, tensor<6x5xf32>) -> tensor<5x6xf32>
  %qy = ag.add %q1, %c0b : (tensor<5x6xf32>, tensor<6xf32>) -> tensor<5x6xf32>
  %qh = ag.relu %qy : tensor<5x6xf32>
  %q2 = ag.matmul %qh, %c2w {transpose_b} : (tensor<5x6xf32>, tensor<1x6xf32>) -> tensor<5x1xf32>
  %q = ag.add %q2, %c2b : (tensor<5x1xf32>, tensor<1xf32>) -> tensor<5x1xf32>
  %m = ag.mean %q : tensor<5x1xf32> -> tensor<f32>
  %loss = ag.neg %m : tensor<f32>
  ag.return %loss : tensor<f32>
}

ag.forward @act(%obs: tensor<5x3xf32> {ag.name = "obs"}) -> (tensor<5x2xf32> {ag.name = "action"}) {
  %a0w = ag.read_weight @actor.0.weight : tensor<7x3xf32>
  %a0b = ag.read_weight @actor.0.bias : tensor<7xf32>
  %a2w = ag.read_weight @actor.2.weight : tensor<2x7xf32>
  %a2b = ag.read_weight @actor.2.bias : tensor<2xf32>
  %z1 = ag.matmul %obs, %a0w {transpose_b} : (tensor<5x3xf32>, tensor<7x3xf32>) -> tensor<5x7xf32>
  %y1 = ag.add %z1, %a0b : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  %h1 = ag.relu %y1 : tensor<5x7xf32>
  %z2 = ag.matmul %h1, %a2w {transpose_b} : (tensor<5x7xf32>, tensor<2x7xf32>) -> tensor<5x2xf32>
  %y2 = ag.add %z2, %a2b : (tensor<5x2xf32>, tensor<2xf32>) -> tensor<5x2xf32>
  %act = ag.tanh %y2 : tensor<5x2xf32>
  ag.return %act : tensor<5x2xf32>
}

ag.forward @splats(%x: tensor<5x3xf32> {ag.name = "x"}, %k: tensor<5x1xf32> {ag.name = "k"})
    -> (tensor<5x7xf32> {ag.name = "lhs"}, tensor<5x5xf32> {ag.name = "rhs"}, tensor<3x3xf32> {ag.name = "both"}) {
  %g = ag.constant dense<-2.000000e-01> : tensor<5x3xf32>
  %w = ag.constant dense<7.500000e-01> : tensor<3x7xf32>
  %c = ag.constant dense<1.250000e+00> : tensor<5x1xf32>
  %e = ag.constant dense<3.000000e+00> : tensor<f32>
  %l = ag.matmul %g, %w : (tensor<5x3xf32>, tensor<3x7xf32>) -> tensor<5x7xf32>
  %lt = ag.tanh %l : tensor<5x7xf32>
  %ly = ag.mul %lt, %e : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  %r = ag.matmul %k, %c {transpose_b} : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x5xf32>
  %ry = ag.add %r, %c : (tensor<5x5xf32>, tensor<5x1xf32>) -> tensor<5x5xf32>
  %b = ag.matmul %g, %x {transpose_a} : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<3x3xf32>
  %by = ag.sub %b, %e : (tensor<3x3xf32>, tensor<f32>) -> tensor<3x3xf32>
  ag.return %ly, %ry, %by : tensor<5x7xf32>, tensor<5x5xf32>, tensor<3x3xf32>
}
