ag.weight @actor.0.weight trainable : tensor<64x64xf32>
ag.weight @actor.0.bias trainable : tensor<64xf32>
ag.weight @actor.2.weight trainable : tensor<64x64xf32>
ag.weight @actor.2.bias trainable : tensor<64xf32>
ag.weight @actor.4.weight trainable : tensor<8x64xf32>
ag.weight @actor.4.bias trainable : tensor<8xf32>
ag.weight @critic.0.weight trainable : tensor<64x64xf32>
ag.weight @critic.0.bias trainable : tensor<64xf32>
ag.weight @critic.2.weight trainable : tensor<64x64xf32>
ag.weight @critic.2.bias trainable : tensor<64xf32>
ag.weight @critic.4.weight trainable : tensor<1x64xf32>
ag.weight @critic.4.bias trainable : tensor<1xf32>
ag.weight @log_std trainable : tensor<8xf32>

ag.train_step @train(%obs: tensor<64x64xf32> {ag.name = "obs"}, %act: tensor<64x8xf32> {ag.name = "act"},
                     %adv: tensor<64xf32> {ag.name = "adv"}, %ret: tensor<64xf32> {ag.name = "ret"},
                     %old_logp: tensor<64xf32> {ag.name = "old_logp"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 3.0e-4, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>,
                max_grad_norm = 0.5 : f32} {
  %actor_w0 = ag.read_weight @actor.0.weight : tensor<64x64xf32>
  %actor_b0 = ag.read_weight @actor.0.bias : tensor<64xf32>
  %actor_w2 = ag.read_weight @actor.2.weight : tensor<64x64xf32>
  %actor_b2 = ag.read_weight @actor.2.bias : tensor<64xf32>
  %actor_w4 = ag.read_weight @actor.4.weight : tensor<8x64xf32>
  %actor_b4 = ag.read_weight @actor.4.bias : tensor<8xf32>
  %actor_mm0 = ag.matmul %obs, %actor_w0 {transpose_b} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %actor_z0 = ag.add %actor_mm0, %actor_b0 : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %actor_h0 = ag.tanh %actor_z0 : tensor<64x64xf32>
  %actor_mm2 = ag.matmul %actor_h0, %actor_w2 {transpose_b} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %actor_z2 = ag.add %actor_mm2, %actor_b2 : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %actor_h2 = ag.tanh %actor_z2 : tensor<64x64xf32>
  %actor_mm4 = ag.matmul %actor_h2, %actor_w4 {transpose_b} : (tensor<64x64xf32>, tensor<8x64xf32>) -> tensor<64x8xf32>
  %actor_z4 = ag.add %actor_mm4, %actor_b4 : (tensor<64x8xf32>, tensor<8xf32>) -> tensor<64x8xf32>
  %log_std = ag.read_weight @log_std : tensor<8xf32>
  %d = ag.sub %act, %actor_z4 : (tensor<64x8xf32>, tensor<64x8xf32>) -> tensor<64x8xf32>
  %std = ag.exp %log_std : tensor<8xf32>
  %zs = ag.div %d, %std : (tensor<64x8xf32>, tensor<8xf32>) -> tensor<64x8xf32>
  %zs2 = ag.square %zs : tensor<64x8xf32>
  %minus_half = ag.constant dense<-0.5> : tensor<f32>
  %t1 = ag.mul %zs2, %minus_half : (tensor<64x8xf32>, tensor<f32>) -> tensor<64x8xf32>
  %t2 = ag.sub %t1, %log_std : (tensor<64x8xf32>, tensor<8xf32>) -> tensor<64x8xf32>
  %log_sqrt_2pi = ag.constant dense<0.9189385> : tensor<f32>
  %t3 = ag.sub %t2, %log_sqrt_2pi : (tensor<64x8xf32>, tensor<f32>) -> tensor<64x8xf32>
  %logp = ag.sum %t3 axis = 1 : tensor<64x8xf32> -> tensor<64xf32>
  %lr = ag.sub %logp, %old_logp : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %ratio = ag.exp %lr : tensor<64xf32>
  %s1 = ag.mul %ratio, %adv : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %rc = ag.clamp %ratio min = 0.8 max = 1.2 : tensor<64xf32>
  %s2 = ag.mul %rc, %adv : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %smin = ag.minimum %s1, %s2 : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %smean = ag.mean %smin : tensor<64xf32> -> tensor<f32>
  %pg = ag.neg %smean : tensor<f32>
  %critic_w0 = ag.read_weight @critic.0.weight : tensor<64x64xf32>
  %critic_b0 = ag.read_weight @critic.0.bias : tensor<64xf32>
  %critic_w2 = ag.read_weight @critic.2.weight : tensor<64x64xf32>
  %critic_b2 = ag.read_weight @critic.2.bias : tensor<64xf32>
  %critic_w4 = ag.read_weight @critic.4.weight : tensor<1x64xf32>
  %critic_b4 = ag.read_weight @critic.4.bias : tensor<1xf32>
  %critic_mm0 = ag.matmul %obs, %critic_w0 {transpose_b} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %critic_z0 = ag.add %critic_mm0, %critic_b0 : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %critic_h0 = ag.tanh %critic_z0 : tensor<64x64xf32>
  %critic_mm2 = ag.matmul %critic_h0, %critic_w2 {transpose_b} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %critic_z2 = ag.add %critic_mm2, %critic_b2 : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %critic_h2 = ag.tanh %critic_z2 : tensor<64x64xf32>
  %critic_mm4 = ag.matmul %critic_h2, %critic_w4 {transpose_b} : (tensor<64x64xf32>, tensor<1x64xf32>) -> tensor<64x1xf32>
  %critic_z4 = ag.add %critic_mm4, %critic_b4 : (tensor<64x1xf32>, tensor<1xf32>) -> tensor<64x1xf32>
  %v = ag.reshape %critic_z4 : tensor<64x1xf32> -> tensor<64xf32>
  %se = ag.mse %v, %ret : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
  %half = ag.constant dense<0.5> : tensor<f32>
  %vl = ag.mul %se, %half : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %ent_c = ag.constant dense<1.4189385> : tensor<f32>
  %e0 = ag.add %log_std, %ent_c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %ent = ag.sum %e0 : tensor<8xf32> -> tensor<f32>
  %l1 = ag.mul %vl, %half : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %l2 = ag.add %pg, %l1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %c001 = ag.constant dense<0.01> : tensor<f32>
  %l3 = ag.mul %ent, %c001 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %loss = ag.sub %l2, %l3 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  ag.return %loss : tensor<f32>
}
