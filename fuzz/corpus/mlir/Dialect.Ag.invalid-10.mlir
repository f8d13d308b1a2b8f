ag.forward @f(%in: tensor<16xi8>) -> () attributes {ag.input_layout = [], ag.output_layout = []} {
  ag.return
}
