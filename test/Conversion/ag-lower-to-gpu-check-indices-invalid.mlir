// RUN: capture-opt %s -split-input-file -verify-diagnostics -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -o /dev/null

// One ag.check_indices kernel is one workgroup of 256 invocations, each
// looping over its share; llvmpipe ends a loop after 65535 iterations, so
// past 256 * (65535 - 256) indices some would go unchecked. The lowering
// refuses that instead.

ag.forward @f(%l: tensor<16711425xi32> {ag.name = "labels"}) -> (tensor<2xi32> {ag.name = "status"}) {
  // expected-error @+1 {{'ag.check_indices' op checks 16711425 indices, more than the 16711424 one check kernel covers (llvmpipe ends an invocation's loops after 65535 iterations)}}
  %s:2 = ag.check_indices %l {bound = 5 : i64, op = "ag.get_rows"} : tensor<16711425xi32> -> (tensor<2xi32>, tensor<f32>)
  ag.return %s#0 : tensor<2xi32>
}

// -----

// The most one kernel covers lowers.
ag.forward @f(%l: tensor<16711424xi32> {ag.name = "labels"}) -> (tensor<2xi32> {ag.name = "status"}) {
  %s:2 = ag.check_indices %l {bound = 5 : i64, op = "ag.get_rows"} : tensor<16711424xi32> -> (tensor<2xi32>, tensor<f32>)
  ag.return %s#0 : tensor<2xi32>
}
