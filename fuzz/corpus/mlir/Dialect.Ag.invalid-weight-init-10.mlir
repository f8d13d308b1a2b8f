"ag.weight"() <{sym_name = "w", type = tensor<2xf32>, initial_value = dense<1.0> : tensor<2xf32>, initializer = #ag.init<zeros>}> : () -> ()
