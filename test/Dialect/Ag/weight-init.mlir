// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s

// Every #ag.init kind round-trips; fields in any order print in one order.

// CHECK: ag.weight @lin.weight trainable : tensor<4x3xf32> = #ag.init<linear, fan_in = 3, seed = 1>
ag.weight @lin.weight trainable : tensor<4x3xf32> = #ag.init<linear, fan_in = 3, seed = 1>
// CHECK: ag.weight @lin.bias trainable : tensor<4xf32> = #ag.init<linear, fan_in = 3, seed = 2>
ag.weight @lin.bias trainable : tensor<4xf32> = #ag.init<linear, seed = 2, fan_in = 3>
// CHECK: ag.weight @emb : tensor<5x2xf32> = #ag.init<normal, mean = 1.000000e-01, std = 2.000000e-02, seed = 3>
ag.weight @emb : tensor<5x2xf32> = #ag.init<normal, std = 0.02, seed = 3, mean = 0.1>
// CHECK: ag.weight @u : tensor<8xf32> = #ag.init<uniform, low = -1.000000e-01, high = 1.000000e-01, seed = 18446744073709551615>
ag.weight @u : tensor<8xf32> = #ag.init<uniform, low = -0.1, high = 0.1, seed = 18446744073709551615>
// CHECK: ag.weight @c : tensor<8xf32> = #ag.init<constant, value = -2.500000e-01>
ag.weight @c : tensor<8xf32> = #ag.init<constant, value = -0.25>
// CHECK: ag.weight @z : tensor<8xf32> = #ag.init<zeros>
ag.weight @z : tensor<8xf32> = #ag.init<zeros>
// CHECK: ag.weight @d : tensor<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
ag.weight @d : tensor<2xf32> = dense<[1.0, 2.0]>
// CHECK: ag.weight @unset : tensor<2xf32>{{ *$}}
ag.weight @unset : tensor<2xf32>
