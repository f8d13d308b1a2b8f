ag.weight @w trainable : tensor<4xf32>
ag.param_pack @p weights([@w]) offsets([0]) size(4)
ag.forward @f(%g: tensor<4xf32> {ag.name = "g"}, %n: tensor<f32> {ag.name = "n"}, %h: tensor<7xf32> {ag.name = "h"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %a = ag.read_weight @w : tensor<4xf32>
  ag.apply_adamw @p grads(%g) grad_norm(%n) hyper(%h) : tensor<4xf32>, tensor<f32>, tensor<7xf32>
  %b = ag.dispatch_region elementwise ins(%a : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = ag.exp %x : tensor<4xf32>
    ag.yield %e : tensor<4xf32>
  }
  ag.return %b : tensor<4xf32>
}
