// RUN: capture-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{target subgroup_size must be a power of two >= 1, got 12}}
module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 12, max_texel_elements = 65536>} {
}

// -----

// expected-error @+1 {{target max_texel_elements must be >= 65536 (what Vulkan guarantees), got 1024}}
module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 1024>} {
}

// -----

// expected-error @+2 {{expected one of [ssbo, texel] for how kernels read their inputs, got: texels}}
// expected-error @+1 {{failed to parse Ag_TargetAttr parameter 'read_path'}}
module attributes {ag.target = #ag.target<read_path = texels, subgroup_size = 8, max_texel_elements = 65536>} {
}
