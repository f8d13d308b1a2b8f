// RUN: capture-opt %s -split-input-file -verify-diagnostics -ag-lower-to-gpu

// expected-error @+1 {{'ag.forward' op must be packed first: run ag-pack-io before ag-lower-to-gpu}}
ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
  ag.return
}

// -----

ag.forward @f(%in: tensor<16xi8>) -> tensor<16xi8> attributes {ag.input_layout = [], ag.output_layout = []} {
  %x = ag.input_view %in[0] : tensor<16xi8> -> tensor<4xf32>
  // expected-error @+1 {{'ag.download' op cannot be lowered: it is host interaction, which ag-verify-capture rejects (run it first)}}
  ag.download %x : tensor<4xf32>
  %o = ag.pack_outputs : -> tensor<16xi8>
  ag.return %o : tensor<16xi8>
}

// -----

// expected-error @+1 {{'ag.target' must be an #ag.target<...> attribute, got "lavapipe"}}
module attributes {ag.target = "lavapipe"} {
}
