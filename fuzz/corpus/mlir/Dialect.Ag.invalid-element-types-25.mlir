ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {
    ag.input_layout = [#ag.segment<"x", [2], index, offset = 0>],
    ag.output_layout = []} {
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}
