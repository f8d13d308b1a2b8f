ag.weight @w trainable : tensor<2xf32>
ag.weight @b trainable : tensor<2xf32>
ag.param_pack @p weights([@w, @b]) offsets([0, 4]) size(6) groups([0, 1])
ag.forward @f(%g: tensor<6xf32> {ag.name = "g"}, %n: tensor<f32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<f32> {ag.name = "y"}) {
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<6xf32>, tensor<f32>, tensor<7xf32>
  ag.return %n : tensor<f32>
}
