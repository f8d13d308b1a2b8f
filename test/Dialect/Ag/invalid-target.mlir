// RUN: capture-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{target subgroup_size must be a power of two >= 1, got 12}}
module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 12, max_texel_elements = 65536, max_loop_iterations = 0>} {
}

// -----

// expected-error @+1 {{target max_texel_elements must be >= 65536 (what Vulkan guarantees), got 1024}}
module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 1024, max_loop_iterations = 0>} {
}

// -----

// expected-error @+1 {{#ag.target read_path must be ssbo or texel, got 'texels' (did you mean 'texel'?)}}
module attributes {ag.target = #ag.target<read_path = texels, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 0>} {
}

// -----

// expected-error @+1 {{#ag.target has no field 'subgroupsize' (did you mean 'subgroup_size'?); its fields are read_path, subgroup_size, max_texel_elements, max_loop_iterations}}
module attributes {ag.target = #ag.target<read_path = texel, subgroupsize = 8, max_texel_elements = 65536, max_loop_iterations = 0>} {
}

// -----

// expected-error @+1 {{#ag.target is missing 'max_texel_elements'; its fields are read_path, subgroup_size, max_texel_elements, max_loop_iterations}}
module attributes {ag.target = #ag.target<subgroup_size = 8, read_path = ssbo, max_loop_iterations = 0>} {
}

// -----

// expected-error @+1 {{target max_loop_iterations must be >= 0 (0: no limit), got -1}}
module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = -1>} {
}

// -----

// A target written before the field existed names what it now needs.
// expected-error @+1 {{#ag.target is missing 'max_loop_iterations'; its fields are read_path, subgroup_size, max_texel_elements, max_loop_iterations}}
module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536>} {
}

// -----

// expected-error @+1 {{#ag.target expects a field name, one of read_path, subgroup_size, max_texel_elements, max_loop_iterations}}
module attributes {ag.target = #ag.target<5>} {
}
