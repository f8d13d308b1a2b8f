module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 134217728, max_loop_iterations = 65535>,
                   test.gpu = #ag.target<max_loop_iterations = 0, max_texel_elements = 65536, read_path = ssbo, subgroup_size = 32>,
                   test.adamw = #ag.adamw<weight_decay = 0.0, eps = 1.0e-6, beta2 = 0.75, beta1 = 0.5, lr = 1.0e-3>} {
}
