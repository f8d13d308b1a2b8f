ag.weight @w trainable : tensor<2xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(2)
ag.forward @f(%g: tensor<2xf32> {ag.name = "g"}, %n: tensor<1xf32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<1xf32> {ag.name = "y"}) {
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<2xf32>, tensor<1xf32>, tensor<7xf32>
  ag.return %n : tensor<1xf32>
}
