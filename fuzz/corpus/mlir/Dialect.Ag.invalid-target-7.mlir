module attributes {ag.target = #ag.target<5>} {
}
