module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 64, weights = 16, optimizer = 0, constants = 32>, test.kinds = [#ag.buffer<optimizer>, #ag.buffer<input>]} {
  ag.weight @w : tensor<4xf32> {ag.place = #ag.place<weights, 0>}
  ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [#ag.segment<"x", [4], f32, offset = 0>], ag.output_layout = [#ag.segment<"s", [], f32, offset = 0>], ag.scratch_bytes = 16 : i64} {
    %x = ag.input_view %in[0] {ag.places = [#ag.place<input, 0>]} : tensor<16xi8> -> tensor<4xf32>
    %c = ag.constant {ag.places = [#ag.place<constants, 0>]} dense<1.0> : tensor<4xf32>
    %a = ag.add %x, %c {ag.places = [#ag.place<scratch, 0>]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %s = ag.sum %a {ag.partials = #ag.place<scratch, 0>, ag.places = [#ag.place<output, 0>]} : tensor<4xf32> -> tensor<f32>
    %o = ag.pack_outputs %s[0] : tensor<f32> -> tensor<16xi8>
    ag.return %o : tensor<16xi8>
  }
}
