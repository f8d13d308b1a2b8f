module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 1024, max_loop_iterations = 0>} {
}
