ag.forward @f(%h: tensor<13x7xf32> {ag.name = "h"}, %t: tensor<13xf32> {ag.name = "t"},
              %b: tensor<7xf32> {ag.name = "b"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<13xf32> {ag.name = "rows"},
        tensor<1x7xf32> {ag.name = "cols"}, tensor<13x7xf32> {ag.name = "grad"},
        tensor<91xf32> {ag.name = "flat"}) {
  %z = ag.add %h, %b : (tensor<13x7xf32>, tensor<7xf32>) -> tensor<13x7xf32>
  %mx = ag.max %z axis = 1 : tensor<13x7xf32> -> tensor<13xf32>
  %mxc = ag.reshape %mx : tensor<13xf32> -> tensor<13x1xf32>
  %d = ag.sub %z, %mxc : (tensor<13x7xf32>, tensor<13x1xf32>) -> tensor<13x7xf32>
  %e = ag.exp %d : tensor<13x7xf32>
  %rows = ag.sum %e axis = 1 : tensor<13x7xf32> -> tensor<13xf32>
  %cols = ag.sum %e axis = 0 keepdim : tensor<13x7xf32> -> tensor<1x7xf32>
  %se = ag.mse %rows, %t : (tensor<13xf32>, tensor<13xf32>) -> tensor<f32>
  %m = ag.mean %cols : tensor<1x7xf32> -> tensor<f32>
  %loss = ag.add %se, %m : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %g0 = ag.mul %e, %loss : (tensor<13x7xf32>, tensor<f32>) -> tensor<13x7xf32>
  %grad = ag.div %g0, %cols : (tensor<13x7xf32>, tensor<1x7xf32>) -> tensor<13x7xf32>
  %flat = ag.reshape %grad : tensor<13x7xf32> -> tensor<91xf32>
  %half = ag.constant dense<0.5> : tensor<f32>
  %flat2 = ag.mul %flat, %half : (tensor<91xf32>, tensor<f32>) -> tensor<91xf32>
  ag.return %loss, %rows, %cols, %grad, %flat2 : tensor<f32>, tensor<13xf32>, tensor<1x7xf32>, tensor<13x7xf32>, tensor<91xf32>
}
