ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {
    ag.input_layout = [],
    ag.output_layout = [#ag.segment<"y", [1], complex<f32>, offset = 0>]} {
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}
