ag.forward @f(%h: tensor<13x7xf32> {ag.name = "h"}, %b: tensor<7xf32> {ag.name = "b"},
              %l: tensor<13xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<13x7xf32> {ag.name = "grad"},
        tensor<7xf32> {ag.name = "db"}, tensor<13x7xf32> {ag.name = "lsm"},
        tensor<13x7xf32> {ag.name = "cols"}, tensor<13x7xf32> {ag.name = "scaled"}) {
  %z = ag.add %h, %b : (tensor<13x7xf32>, tensor<7xf32>) -> tensor<13x7xf32>
  %loss = ag.cross_entropy %z, %l : (tensor<13x7xf32>, tensor<13xi32>) -> tensor<f32>
  %p = ag.softmax %z axis = 1 : tensor<13x7xf32>
  %oh = ag.one_hot %l : tensor<13xi32> -> tensor<13x7xf32>
  %d = ag.sub %p, %oh : (tensor<13x7xf32>, tensor<13x7xf32>) -> tensor<13x7xf32>
  %inv = ag.constant dense<0.0769230798> : tensor<f32>
  %g = ag.mul %d, %inv : (tensor<13x7xf32>, tensor<f32>) -> tensor<13x7xf32>
  %db = ag.sum %g axis = 0 : tensor<13x7xf32> -> tensor<7xf32>
  %lsm = ag.log_softmax %z axis = -1 : tensor<13x7xf32>
  %cols = ag.softmax %z axis = 0 : tensor<13x7xf32>
  %scaled = ag.mul %g, %loss : (tensor<13x7xf32>, tensor<f32>) -> tensor<13x7xf32>
  ag.return %loss, %g, %db, %lsm, %cols, %scaled : tensor<f32>, tensor<13x7xf32>, tensor<7xf32>, tensor<13x7xf32>, tensor<13x7xf32>, tensor<13x7xf32>
}
