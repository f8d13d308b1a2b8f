ag.forward @f(%x: tensor<4x8xf32> {ag.name = "x"}, %b: tensor<8xf32> {ag.name = "b"})
    -> (tensor<4x8xf32> {ag.name = "y"}) {
  %r = ag.dispatch_region elementwise ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%xa: tensor<4x8xf32>, %ba: tensor<8xf32>):
    %one = ag.constant dense<1.0> : tensor<f32>
    %a = ag.add %xa, %ba : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %s = ag.sub %a, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    ag.yield %s : tensor<4x8xf32>
  }
  ag.return %r : tensor<4x8xf32>
}

ag.forward @wgrad(%x: tensor<5x3xf32> {ag.name = "x"}, %y: tensor<5x4xf32> {ag.name = "y"})
    -> (tensor<3x4xf32> {ag.name = "w"}, tensor<3xf32> {ag.name = "b"}) {
  %r:2 = ag.dispatch_region matmul ins(%x, %y : tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>, tensor<3xf32> {
  ^bb0(%a: tensor<5x3xf32>, %b: tensor<5x4xf32>):
    %m = ag.matmul %a, %b {transpose_a} : (tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
    %s = ag.sum %a axis = 0 : tensor<5x3xf32> -> tensor<3xf32>
    ag.yield %m, %s : tensor<3x4xf32>, tensor<3xf32>
  }
  ag.return %r#0, %r#1 : tensor<3x4xf32>, tensor<3xf32>
}

ag.forward @norm(%g: tensor<6xf32> {ag.name = "g"}, %p: tensor<f32> {ag.name = "p"})
    -> (tensor<f32> {ag.name = "n"}) {
  %r = ag.dispatch_region reduction ins(%g, %p : tensor<6xf32>, tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<6xf32>, %b: tensor<f32>):
    %sq = ag.mul %a, %a : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    %s = ag.sum %sq : tensor<6xf32> -> tensor<f32>
    %n = ag.sqrt %s : tensor<f32>
    %t = ag.add %n, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    ag.yield %t : tensor<f32>
  }
  ag.return %r : tensor<f32>
}
