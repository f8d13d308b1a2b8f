module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536>} {
}
