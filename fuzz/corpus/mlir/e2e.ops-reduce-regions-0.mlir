ag.forward @f(%g: tensor<70001xf32> {ag.name = "g"}, %h: tensor<65x67xf32> {ag.name = "h"},
              %b: tensor<67xf32> {ag.name = "b"}, %p: tensor<f32> {ag.name = "p"})
    -> (tensor<f32> {ag.name = "sumsq"}, tensor<65xf32> {ag.name = "rowmean"},
        tensor<1x67xf32> {ag.name = "colmax"}, tensor<f32> {ag.name = "norm"},
        tensor<65xf32> {ag.name = "expmean"}, tensor<f32> {ag.name = "pnorm"},
        tensor<67xf32> {ag.name = "colmeanp"}) {
  %sq = ag.mul %g, %g : (tensor<70001xf32>, tensor<70001xf32>) -> tensor<70001xf32>
  %s = ag.sum %sq : tensor<70001xf32> -> tensor<f32>
  %a = ag.add %h, %b : (tensor<65x67xf32>, tensor<67xf32>) -> tensor<65x67xf32>
  %m = ag.mean %a axis = 1 : tensor<65x67xf32> -> tensor<65xf32>
  %e = ag.exp %h : tensor<65x67xf32>
  %x = ag.max %e axis = 0 keepdim : tensor<65x67xf32> -> tensor<1x67xf32>
  %g2 = ag.add %g, %g : (tensor<70001xf32>, tensor<70001xf32>) -> tensor<70001xf32>
  %q = ag.mul %g2, %g2 : (tensor<70001xf32>, tensor<70001xf32>) -> tensor<70001xf32>
  %ss = ag.sum %q : tensor<70001xf32> -> tensor<f32>
  %norm = ag.sqrt %ss : tensor<f32>
  %a2 = ag.sub %h, %b : (tensor<65x67xf32>, tensor<67xf32>) -> tensor<65x67xf32>
  %am = ag.mean %a2 axis = 1 : tensor<65x67xf32> -> tensor<65xf32>
  %em = ag.exp %am : tensor<65xf32>
  %eg = ag.exp %g : tensor<70001xf32>
  %q3 = ag.mul %eg, %g : (tensor<70001xf32>, tensor<70001xf32>) -> tensor<70001xf32>
  %s3 = ag.sum %q3 : tensor<70001xf32> -> tensor<f32>
  %r3 = ag.sqrt %s3 : tensor<f32>
  %pnorm = ag.add %r3, %p : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %th = ag.tanh %h : tensor<65x67xf32>
  %cm = ag.mean %th axis = 0 : tensor<65x67xf32> -> tensor<67xf32>
  %cmp = ag.mul %cm, %p : (tensor<67xf32>, tensor<f32>) -> tensor<67xf32>
  ag.return %s, %m, %x, %norm, %em, %pnorm, %cmp : tensor<f32>, tensor<65xf32>, tensor<1x67xf32>, tensor<f32>, tensor<65xf32>, tensor<f32>, tensor<67xf32>
}
