// RUN: capture-opt %s -split-input-file -verify-diagnostics

ag.weight @t : tensor<4xf32> = dense<0.0>
ag.train_step @train(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %l = ag.sum %x : tensor<4xf32> -> tensor<f32>
  // expected-error @+1 {{'ag.assign_weight' op assigns @t in ag.train_step: only an ag.forward assigns weights (a training step changes its weights through its update)}}
  ag.assign_weight @t, %x : tensor<4xf32>
  ag.return %l : tensor<f32>
}

// -----

ag.weight @t : tensor<4xf32> = dense<0.0>
ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  // expected-note @+1 {{the assign}}
  ag.assign_weight @t, %x : tensor<4xf32>
  // expected-error @+1 {{'ag.read_weight' op reads @t after an ag.assign_weight of it: an entry assigns a weight once, after every read of it}}
  %t = ag.read_weight @t : tensor<4xf32>
  ag.return %t : tensor<4xf32>
}

// -----

ag.weight @t : tensor<4xf32> = dense<0.0>
ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> () {
  // expected-note @+1 {{the assign}}
  ag.assign_weight @t, %x : tensor<4xf32>
  // expected-error @+1 {{'ag.assign_weight' op assigns @t after an ag.assign_weight of it}}
  ag.assign_weight @t, %x : tensor<4xf32>
  ag.return
}

// -----

ag.weight @t : tensor<4xf32> = dense<0.0>
ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.assign_weight' op refers to @nope, which is not an ag.weight of this module}}
  ag.assign_weight @nope, %x : tensor<4xf32>
  ag.return
}

// -----

ag.weight @t : tensor<4xf32> = dense<0.0>
ag.forward @f(%x: tensor<2x2xf32> {ag.name = "x"}) -> () {
  // expected-error @+1 {{'ag.assign_weight' op assigns 'tensor<2x2xf32>' to @t, which is declared 'tensor<4xf32>'}}
  ag.assign_weight @t, %x : tensor<2x2xf32>
  ag.return
}
