module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 64, weights = 0, optimizer = -16, constants = 0>} {
}
