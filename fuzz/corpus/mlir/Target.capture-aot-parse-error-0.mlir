ag.weight @w : tensor<2xf32> = #ag.init<constant, value = 0.0>@
