// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s

// The target description round-trips with both read paths.

// CHECK: module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 134217728>, test.gpu = #ag.target<read_path = ssbo, subgroup_size = 32, max_texel_elements = 65536>}
module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 134217728>,
                   test.gpu = #ag.target<read_path = ssbo, subgroup_size = 32, max_texel_elements = 65536>} {
}
