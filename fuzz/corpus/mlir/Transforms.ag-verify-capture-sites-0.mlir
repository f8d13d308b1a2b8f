ag.forward @step(%x: tensor<2x4xf32> {ag.name = "x"}) -> (tensor<2x4xf32> {ag.name = "y"}) {
  %m1 = ag.upload : tensor<2x4xf32> loc("policy.cpp":12:7)
  %m2 = ag.upload : tensor<2x4xf32> loc("policy.cpp":12:7)
  %m3 = ag.upload : tensor<2x4xf32> loc("policy.cpp":40:3)
  %seed = ag.upload constant : tensor<f32> = dense<1.0> loc("policy.cpp":50:1)
  %0 = ag.mul %x, %m1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ag.download %0 : tensor<2x4xf32> loc("policy.cpp":60:9)
  %e1 = ag.eager "relu" (%0) : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("policy.cpp":70:2)
  %e2 = ag.eager "relu" (%0) : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("policy.cpp":70:2)
  ag.return %e2 : tensor<2x4xf32>
}

ag.forward @kinds(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %a = ag.upload : tensor<2xf32> loc("obs"("policy.cpp":80:5))
  %b = ag.upload : tensor<2xf32> loc(fused["policy.cpp":80:5, "lib.cpp":3:3])
  %c = ag.upload : tensor<2xf32> loc(callsite("lib.cpp":9:9 at "train.py":7:1))
  %d = ag.upload : tensor<2xf32> loc(unknown)
  %e = ag.upload : tensor<2xf32> loc(unknown)
  ag.return %x : tensor<2xf32>
}

ag.forward @columns(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  ag.download %x : tensor<2xf32> loc("model.cpp":21:13)
  ag.download %x : tensor<2xf32> loc("model.cpp":21:30)
  ag.download %x : tensor<2xf32> loc("model.cpp":21:13)
  ag.download %x : tensor<2xf32> loc("model.cpp":22:9)
  ag.download %x : tensor<2xf32> loc("model.cpp":22:9)
  ag.return %x : tensor<2xf32>
}
