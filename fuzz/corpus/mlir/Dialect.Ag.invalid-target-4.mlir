module attributes {ag.target = #ag.target<subgroup_size = 8, read_path = ssbo>} {
}
