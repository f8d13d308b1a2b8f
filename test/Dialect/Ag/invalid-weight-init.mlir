// RUN: capture-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#ag.init has no kind 'unifrom' (did you mean 'uniform'?); its kinds are zeros, constant, uniform, normal, linear}}
ag.weight @w : tensor<2xf32> = #ag.init<unifrom, low = 0.0, high = 1.0, seed = 1>

// -----

// expected-error @+1 {{#ag.init expects a kind first, one of zeros, constant, uniform, normal, linear}}
ag.weight @w : tensor<2xf32> = #ag.init<1.0>

// -----

// expected-error @+1 {{#ag.init<uniform> is missing 'seed'; its fields are low, high, seed}}
ag.weight @w : tensor<2xf32> = #ag.init<uniform, low = 0.0, high = 1.0>

// -----

// expected-error @+1 {{#ag.init<normal> has no field 'sdt' (did you mean 'std'?); its fields are mean, std, seed}}
ag.weight @w : tensor<2xf32> = #ag.init<normal, mean = 0.0, sdt = 1.0, seed = 1>

// -----

// expected-error @+1 {{#ag.init<linear> sets 'seed' twice}}
ag.weight @w : tensor<2xf32> = #ag.init<linear, seed = 1, fan_in = 2, seed = 2>

// -----

// expected-error @+1 {{#ag.init<zeros> takes no fields}}
ag.weight @w : tensor<2xf32> = #ag.init<zeros, seed = 1>

// -----

// expected-error @+1 {{#ag.init<uniform> low must be <= high, got low 1.000000e+00 and high -1.000000e+00}}
ag.weight @w : tensor<2xf32> = #ag.init<uniform, low = 1.0, high = -1.0, seed = 1>

// -----

// expected-error @+1 {{#ag.init<normal> std must be >= 0, got -5.000000e-01}}
ag.weight @w : tensor<2xf32> = #ag.init<normal, mean = 0.0, std = -0.5, seed = 1>

// -----

// expected-error @+1 {{#ag.init<linear> fan_in must be >= 1 (the layer's input features), got 0}}
ag.weight @w : tensor<2xf32> = #ag.init<linear, fan_in = 0, seed = 1>

// -----

// expected-error @+1 {{#ag.init<constant> value must be a finite f32 value, got 1.000000e+39}}
ag.weight @w : tensor<2xf32> = #ag.init<constant, value = 1.0e39>

// -----

// expected-error @+1 {{'ag.weight' op has both an initial value and an initializer, expected at most one}}
"ag.weight"() <{sym_name = "w", type = tensor<2xf32>, initial_value = dense<1.0> : tensor<2xf32>, initializer = #ag.init<zeros>}> : () -> ()

// -----

// expected-error @+1 {{expected a dense elements initial value or an #ag.init rule, found "zeros"}}
ag.weight @w : tensor<2xf32> = "zeros"
