ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  %x = ag.input_view %in[4] : tensor<16xi8> -> tensor<4xf32>
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}
