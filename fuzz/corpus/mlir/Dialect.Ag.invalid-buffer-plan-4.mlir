ag.weight @w : tensor<4xf32> {ag.buffer_plan = #ag.buffer_plan<alignment = 64, weights = 0, optimizer = 0, constants = 0>}
