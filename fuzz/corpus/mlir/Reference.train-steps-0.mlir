ag.weight @lin.w trainable : tensor<4x2xf32> = dense<[[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6], [0.7, -0.8]]>
ag.weight @lin.b trainable : tensor<2xf32> = #ag.init<zeros>
ag.weight @frozen : tensor<2xf32> = dense<[1.0, -1.0]>
ag.param_pack @train.params weights([@lin.w, @lin.b]) offsets([0, 64]) size(66)

ag.train_step @train(%x: tensor<3x4xf32> {ag.name = "x"},
                     %mgn: tensor<f32> {ag.hyper = "max_grad_norm", ag.name = "max_grad_norm"},
                     %h: tensor<7xf32> {ag.hyper = "adamw", ag.name = "adamw"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>, max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @lin.w : tensor<4x2xf32>
  %b = ag.read_weight @lin.b : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %z = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %zz = ag.mul %z, %z : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %loss = ag.sum %zz : tensor<3x2xf32> -> tensor<f32>
  %gz = ag.add %z, %z : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %gw = ag.matmul %x, %gz {transpose_a} : (tensor<3x4xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %gb = ag.sum %gz axis = 0 : tensor<3x2xf32> -> tensor<2xf32>
  %g = ag.pack_grads @train.params(%gw, %gb) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<66xf32>
  %gg = ag.mul %g, %g : (tensor<66xf32>, tensor<66xf32>) -> tensor<66xf32>
  %ss = ag.sum %gg : tensor<66xf32> -> tensor<f32>
  %n = ag.sqrt %ss : tensor<f32>
  %tiny = ag.constant dense<1.0e-6> : tensor<f32>
  %d = ag.add %n, %tiny : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %q = ag.div %mgn, %d : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %one = ag.constant dense<1.0> : tensor<f32>
  %scale = ag.minimum %q, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %gs = ag.mul %g, %scale : (tensor<66xf32>, tensor<f32>) -> tensor<66xf32>
  ag.apply_adamw @train.params grads(%gs) grad_norm(%n) hyper(%h) : tensor<66xf32>, tensor<f32>, tensor<7xf32>
  ag.return %loss, %n : tensor<f32>, tensor<f32>
}

ag.forward @predict(%x: tensor<3x4xf32> {ag.name = "x"}) -> (tensor<3x2xf32> {ag.name = "y"}) {
  %w = ag.read_weight @lin.w : tensor<4x2xf32>
  %y = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  ag.return %y : tensor<3x2xf32>
}
