"ag.weight"() <{sym_name = "w", type = tensor<4xf32>, initial_value = dense<1.0> : tensor<3xf32>}> : () -> ()
