module attributes {ag.target = #ag.target<subgroup_size = 8, read_path = ssbo, max_loop_iterations = 0>} {
}
