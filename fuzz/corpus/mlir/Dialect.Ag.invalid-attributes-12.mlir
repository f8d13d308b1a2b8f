module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 64, weight = 0, optimizer = 0, constants = 0>} {
}
