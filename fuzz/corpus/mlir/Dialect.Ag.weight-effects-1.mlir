ag.weight @w trainable : tensor<4xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(4)
ag.forward @between(%g: tensor<4xf32> {ag.name = "g"}, %n: tensor<f32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %a = ag.read_weight @w : tensor<4xf32>
  %b = ag.read_weight @w : tensor<4xf32>
  %unused = ag.read_weight @w : tensor<4xf32>
  %y = ag.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<4xf32>, tensor<f32>, tensor<7xf32>
  ag.return %y : tensor<4xf32>
}
