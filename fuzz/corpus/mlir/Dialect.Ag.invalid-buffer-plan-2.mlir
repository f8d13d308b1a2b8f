module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 48, weights = 0, optimizer = 0, constants = 0>} {
}
