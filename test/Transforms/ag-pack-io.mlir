// RUN: capture-opt %s -split-input-file -ag-pack-io | FileCheck %s
// RUN: capture-opt %s -split-input-file -ag-pack-io=alignment=16 | FileCheck %s --check-prefix=A16
// RUN: not capture-opt %s -ag-pack-io=alignment=24 2>&1 | FileCheck %s --check-prefix=BAD

// Inputs become views of one byte buffer and outputs are packed into one,
// every segment at a 256-byte (or the given) alignment, in order.

// CHECK-LABEL: ag.forward @mlp
// CHECK-SAME: (%[[IN:.*]]: tensor<784xi8>) -> tensor<272xi8>
// CHECK-SAME: ag.input_layout = [#ag.segment<"obs", [2, 4], f32, offset = 0>, #ag.segment<"mask", [3], f32, offset = 256>, #ag.segment<"bias", [2, 5], f32, offset = 512>, #ag.segment<"scale", [], f32, offset = 768>]
// CHECK-SAME: ag.output_layout = [#ag.segment<"y", [2, 4], f32, offset = 0>, #ag.segment<"s", [], f32, offset = 256>]
// CHECK-DAG: %[[OBS:.*]] = ag.input_view %[[IN]][0] : tensor<784xi8> -> tensor<2x4xf32>
// CHECK-DAG: %[[SCALE:.*]] = ag.input_view %[[IN]][768] : tensor<784xi8> -> tensor<f32>
// CHECK: %[[Y:.*]] = ag.mul %[[OBS]], %[[SCALE]]
// CHECK: %[[S:.*]] = ag.sum %[[Y]]
// CHECK: %[[OUT:.*]] = ag.pack_outputs %[[Y]][0], %[[S]][256] : tensor<2x4xf32>, tensor<f32> -> tensor<272xi8>
// CHECK: ag.return %[[OUT]] : tensor<272xi8>

// A16-LABEL: ag.forward @mlp
// A16-SAME: (%{{.*}}: tensor<112xi8>) -> tensor<48xi8>
// A16-SAME: #ag.segment<"mask", [3], f32, offset = 32>, #ag.segment<"bias", [2, 5], f32, offset = 48>, #ag.segment<"scale", [], f32, offset = 96>
// A16-SAME: #ag.segment<"s", [], f32, offset = 32>
ag.forward @mlp(%obs: tensor<2x4xf32> {ag.name = "obs"}, %mask: tensor<3xf32> {ag.name = "mask"},
                %bias: tensor<2x5xf32> {ag.name = "bias"}, %scale: tensor<f32> {ag.name = "scale"})
    -> (tensor<2x4xf32> {ag.name = "y"}, tensor<f32> {ag.name = "s"}) {
  %y = ag.mul %obs, %scale : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %s = ag.sum %y : tensor<2x4xf32> -> tensor<f32>
  ag.return %y, %s : tensor<2x4xf32>, tensor<f32>
}

// -----

// An entry without inputs or outputs still gets (minimal) buffers.
// CHECK-LABEL: ag.forward @empty
// CHECK-SAME: (%{{.*}}: tensor<16xi8>) -> tensor<16xi8>
// CHECK-SAME: ag.input_layout = [], ag.output_layout = []
// CHECK: %[[O:.*]] = ag.pack_outputs : -> tensor<16xi8>
// CHECK: ag.return %[[O]]
ag.forward @empty() -> () {
  ag.return
}

// BAD: error: ag-pack-io: alignment must be a power of two >= 4, got 24
