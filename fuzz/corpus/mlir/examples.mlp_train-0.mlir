ag.weight @fc1.weight trainable : tensor<256x784xf32> = #ag.init<linear, fan_in = 784, seed = 1>
ag.weight @fc1.bias trainable : tensor<256xf32> = #ag.init<linear, fan_in = 784, seed = 2>
ag.weight @fc2.weight trainable : tensor<256x256xf32> = #ag.init<linear, fan_in = 256, seed = 3>
ag.weight @fc2.bias trainable : tensor<256xf32> = #ag.init<linear, fan_in = 256, seed = 4>
ag.weight @fc3.weight trainable : tensor<10x256xf32> = #ag.init<linear, fan_in = 256, seed = 5>
ag.weight @fc3.bias trainable : tensor<10xf32> = #ag.init<linear, fan_in = 256, seed = 6>

ag.train_step @train(%x: tensor<128x784xf32> {ag.name = "x"},
                     %labels: tensor<128xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>,
                max_grad_norm = 1.0 : f32} {
  %w1 = ag.read_weight @fc1.weight : tensor<256x784xf32>
  %b1 = ag.read_weight @fc1.bias : tensor<256xf32>
  %w2 = ag.read_weight @fc2.weight : tensor<256x256xf32>
  %b2 = ag.read_weight @fc2.bias : tensor<256xf32>
  %w3 = ag.read_weight @fc3.weight : tensor<10x256xf32>
  %b3 = ag.read_weight @fc3.bias : tensor<10xf32>
  %z1 = ag.matmul %x, %w1 {transpose_b} : (tensor<128x784xf32>, tensor<256x784xf32>) -> tensor<128x256xf32>
  %a1 = ag.add %z1, %b1 : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  %h1 = ag.relu %a1 : tensor<128x256xf32>
  %z2 = ag.matmul %h1, %w2 {transpose_b} : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %a2 = ag.add %z2, %b2 : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  %h2 = ag.relu %a2 : tensor<128x256xf32>
  %z3 = ag.matmul %h2, %w3 {transpose_b} : (tensor<128x256xf32>, tensor<10x256xf32>) -> tensor<128x10xf32>
  %logits = ag.add %z3, %b3 : (tensor<128x10xf32>, tensor<10xf32>) -> tensor<128x10xf32>
  %loss = ag.cross_entropy %logits, %labels : (tensor<128x10xf32>, tensor<128xi32>) -> tensor<f32>
  ag.return %loss : tensor<f32>
}

ag.forward @predict(%x: tensor<1x784xf32> {ag.name = "x"})
    -> (tensor<1x10xf32> {ag.name = "logits"}) {
  %w1 = ag.read_weight @fc1.weight : tensor<256x784xf32>
  %b1 = ag.read_weight @fc1.bias : tensor<256xf32>
  %w2 = ag.read_weight @fc2.weight : tensor<256x256xf32>
  %b2 = ag.read_weight @fc2.bias : tensor<256xf32>
  %w3 = ag.read_weight @fc3.weight : tensor<10x256xf32>
  %b3 = ag.read_weight @fc3.bias : tensor<10xf32>
  %z1 = ag.matmul %x, %w1 {transpose_b} : (tensor<1x784xf32>, tensor<256x784xf32>) -> tensor<1x256xf32>
  %a1 = ag.add %z1, %b1 : (tensor<1x256xf32>, tensor<256xf32>) -> tensor<1x256xf32>
  %h1 = ag.relu %a1 : tensor<1x256xf32>
  %z2 = ag.matmul %h1, %w2 {transpose_b} : (tensor<1x256xf32>, tensor<256x256xf32>) -> tensor<1x256xf32>
  %a2 = ag.add %z2, %b2 : (tensor<1x256xf32>, tensor<256xf32>) -> tensor<1x256xf32>
  %h2 = ag.relu %a2 : tensor<1x256xf32>
  %z3 = ag.matmul %h2, %w3 {transpose_b} : (tensor<1x256xf32>, tensor<10x256xf32>) -> tensor<1x10xf32>
  %logits = ag.add %z3, %b3 : (tensor<1x10xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  ag.return %logits : tensor<1x10xf32>
}
