ag.weight @w : tensor<4xf32> {ag.place = #ag.place<weights, -4>}
