// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s

// The target description round-trips with both read paths; its fields
// (and #ag.adamw's) may come in any order and print in the canonical one.

// CHECK: module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 134217728, max_loop_iterations = 65535>, test.adamw = #ag.adamw<lr = 1.000000e-03, beta1 = 5.000000e-01, beta2 = 7.500000e-01, eps = 9.9999999999999995E-7, weight_decay = 0.000000e+00>, test.gpu = #ag.target<read_path = ssbo, subgroup_size = 32, max_texel_elements = 65536, max_loop_iterations = 0>}
module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 134217728, max_loop_iterations = 65535>,
                   test.gpu = #ag.target<max_loop_iterations = 0, max_texel_elements = 65536, read_path = ssbo, subgroup_size = 32>,
                   test.adamw = #ag.adamw<weight_decay = 0.0, eps = 1.0e-6, beta2 = 0.75, beta1 = 0.5, lr = 1.0e-3>} {
}
