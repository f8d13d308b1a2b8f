ag.weight @emb : tensor<4x2xf32> = dense<[[0.0, 1.0], [10.0, 11.0], [20.0, 21.0], [30.0, 31.0]]>

ag.forward @main(%ids: tensor<3xi32> {ag.name = "ids"}, %labels: tensor<3xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<3x3xf32> {ag.name = "probs"},
        tensor<3x3xf32> {ag.name = "lsm"}, tensor<f32> {ag.name = "mse"},
        tensor<9xf32> {ag.name = "clipped"}, tensor<3xi32> {ag.name = "ids_out"}) {
  %table = ag.read_weight @emb : tensor<4x2xf32>
  %e = ag.get_rows %table, %ids : (tensor<4x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
  %c0 = ag.slice %e axis = 1 start = 0 end = 1 : tensor<3x2xf32> -> tensor<3x1xf32>
  %c1 = ag.slice %e axis = -1 start = 1 end = 2 : tensor<3x2xf32> -> tensor<3x1xf32>
  %z = ag.constant dense<0.0> : tensor<3x1xf32>
  %logits = ag.concat %c0, %c1, %z axis = 1 : (tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %m = ag.max %logits axis = -1 keepdim : tensor<3x3xf32> -> tensor<3x1xf32>
  %centred = ag.sub %logits, %m : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %cl = ag.clamp %centred min = -2.0 max = 0.0 : tensor<3x3xf32>
  %loss = ag.cross_entropy %cl, %labels : (tensor<3x3xf32>, tensor<3xi32>) -> tensor<f32>
  %probs = ag.softmax %cl axis = 1 : tensor<3x3xf32>
  %lsm = ag.log_softmax %cl axis = -1 : tensor<3x3xf32>
  %tr = ag.transpose %cl permutation = [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  %mse = ag.mse %cl, %tr : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<f32>
  %flat = ag.reshape %tr : tensor<3x3xf32> -> tensor<9xf32>
  %hi = ag.constant dense<-0.5> : tensor<f32>
  %hib = ag.broadcast_to %hi : tensor<f32> -> tensor<9xf32>
  %lo = ag.constant dense<-1.5> : tensor<f32>
  %mn = ag.minimum %flat, %hib : (tensor<9xf32>, tensor<9xf32>) -> tensor<9xf32>
  %clipped = ag.maximum %mn, %lo : (tensor<9xf32>, tensor<f32>) -> tensor<9xf32>
  ag.return %loss, %probs, %lsm, %mse, %clipped, %ids : tensor<f32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<f32>, tensor<9xf32>, tensor<3xi32>
}

ag.forward @make_f32() -> (tensor<3xf32> {ag.name = "ids"}) {
  %c = ag.constant dense<[3.0, 0.0, 3.0]> : tensor<3xf32>
  ag.return %c : tensor<3xf32>
}
