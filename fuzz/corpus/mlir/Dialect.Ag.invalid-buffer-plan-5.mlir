ag.weight @w : tensor<4xf32> {ag.place = 0 : i64}
