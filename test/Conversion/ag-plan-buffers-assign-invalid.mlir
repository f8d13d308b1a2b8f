// RUN: capture-opt %s -split-input-file -verify-diagnostics -ag-pack-io -ag-plan-buffers

// Weights copied into weights that are themselves assigned a weight: the
// copies at the entry's end have no order that keeps both old values.

ag.weight @a : tensor<4xf32> = dense<1.0>
ag.weight @b : tensor<4xf32> = dense<2.0>
ag.forward @swap(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %a = ag.read_weight @a : tensor<4xf32>
  %b = ag.read_weight @b : tensor<4xf32>
  // expected-error @+1 {{'ag.assign_weight' op copies @b into @a, but @b is itself assigned a weight's value in this entry: a compiled entry copies weights into weights at its end, in no order that keeps both old values; assign one of them in another entry}}
  ag.assign_weight @a, %b : tensor<4xf32>
  // expected-note @+1 {{the other copy}}
  ag.assign_weight @b, %a : tensor<4xf32>
  ag.return %x : tensor<4xf32>
}

// -----

ag.weight @a : tensor<4xf32> = dense<1.0>
ag.weight @b : tensor<4xf32> = dense<2.0>
ag.weight @c : tensor<4xf32> = dense<3.0>
ag.forward @chain(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %a = ag.read_weight @a : tensor<4xf32>
  %b = ag.read_weight @b : tensor<4xf32>
  // expected-note @+1 {{the other copy}}
  ag.assign_weight @b, %a : tensor<4xf32>
  %e = ag.exp %x : tensor<4xf32>
  ag.assign_weight @a, %e : tensor<4xf32>
  // expected-error @+1 {{'ag.assign_weight' op copies @b into @c}}
  ag.assign_weight @c, %b : tensor<4xf32>
  ag.return %x : tensor<4xf32>
}

// -----

ag.weight @t : tensor<4xf32> = dense<1.0>
ag.forward @probed(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %t = ag.read_weight @t : tensor<4xf32>
  // expected-error @+1 {{'ag.probe' op probes @t, which this entry assigns: a probe is read after the replay, when the weight holds its new value; probe a value computed from it, or read the weight before the entry}}
  %p = ag.probe "old" %t : tensor<4xf32>
  // expected-note @+1 {{the assign}}
  ag.assign_weight @t, %x : tensor<4xf32>
  ag.return %x : tensor<4xf32>
}
