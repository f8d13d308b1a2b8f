ag.weight @w : tensor<4xf32> {ag.place = #ag.place<scratchpad, 0>}
