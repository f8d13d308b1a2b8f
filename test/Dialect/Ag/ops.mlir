// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s

// Every op of the ag dialect survives print -> parse -> print.

// CHECK: ag.weight @w trainable : tensor<4x8xf32>
ag.weight @w trainable : tensor<4x8xf32>
// CHECK: ag.weight @b : tensor<8xf32> = dense<5.000000e-01>
ag.weight @b : tensor<8xf32> = dense<0.5>

// CHECK-LABEL: ag.forward @compute
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32> {ag.name = "x"}, %[[Y:.*]]: tensor<2x8xf32> {ag.name = "y"})
// CHECK-SAME: -> (tensor<2x8xf32> {ag.name = "out"}, tensor<f32> {ag.name = "total"})
ag.forward @compute(%x: tensor<2x4xf32> {ag.name = "x"}, %y: tensor<2x8xf32> {ag.name = "y"})
    -> (tensor<2x8xf32> {ag.name = "out"}, tensor<f32> {ag.name = "total"}) {
  // CHECK: %[[C:.*]] = ag.constant dense<1.000000e+00> : tensor<8xf32>
  %c = ag.constant dense<1.0> : tensor<8xf32>
  // CHECK: %[[W:.*]] = ag.read_weight @w : tensor<4x8xf32>
  %w = ag.read_weight @w : tensor<4x8xf32>
  // CHECK: %[[MM:.*]] = ag.matmul %[[X]], %[[W]] : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  %mm = ag.matmul %x, %w : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  // CHECK: ag.matmul %[[X]], %[[X]] {transpose_b} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %xt = ag.matmul %x, %x {transpose_b} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  // CHECK: ag.matmul %[[X]], %[[X]] {transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %tx = ag.matmul %x, %x {transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  // CHECK: %[[ADD:.*]] = ag.add %[[MM]], %[[C]] : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %add = ag.add %mm, %c : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  // CHECK: %[[SUB:.*]] = ag.sub %[[ADD]], %[[Y]] : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %sub = ag.sub %add, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: %[[MUL:.*]] = ag.mul %[[SUB]], %[[SUB]] : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %mul = ag.mul %sub, %sub : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: %[[DIV:.*]] = ag.div %[[C]], %[[MUL]] : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %div = ag.div %c, %mul : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: %[[NEG:.*]] = ag.neg %[[DIV]] : tensor<2x8xf32>
  %neg = ag.neg %div : tensor<2x8xf32>
  // CHECK: %[[EXP:.*]] = ag.exp %[[NEG]] : tensor<2x8xf32>
  %exp = ag.exp %neg : tensor<2x8xf32>
  // CHECK: %[[LOG:.*]] = ag.log %[[EXP]] : tensor<2x8xf32>
  %log = ag.log %exp : tensor<2x8xf32>
  // CHECK: %[[TANH:.*]] = ag.tanh %[[LOG]] : tensor<2x8xf32>
  %tanh = ag.tanh %log : tensor<2x8xf32>
  // CHECK: %[[SIG:.*]] = ag.sigmoid %[[TANH]] : tensor<2x8xf32>
  %sig = ag.sigmoid %tanh : tensor<2x8xf32>
  // CHECK: %[[RELU:.*]] = ag.relu %[[SIG]] : tensor<2x8xf32>
  %relu = ag.relu %sig : tensor<2x8xf32>
  // CHECK: %[[SQRT:.*]] = ag.sqrt %[[RELU]] : tensor<2x8xf32>
  %sqrt = ag.sqrt %relu : tensor<2x8xf32>
  // CHECK: %[[SQ:.*]] = ag.square %[[SQRT]] : tensor<2x8xf32>
  %sq = ag.square %sqrt : tensor<2x8xf32>
  // CHECK: %[[FLOOR:.*]] = ag.floor %[[SQ]] : tensor<2x8xf32>
  %floor = ag.floor %sq : tensor<2x8xf32>
  // CHECK: %[[CEIL:.*]] = ag.ceil %[[FLOOR]] : tensor<2x8xf32>
  %ceil = ag.ceil %floor : tensor<2x8xf32>
  // CHECK: %[[ERF:.*]] = ag.erf %[[CEIL]] : tensor<2x8xf32>
  %erf = ag.erf %ceil : tensor<2x8xf32>
  // CHECK: %[[P:.*]] = ag.probe "hidden" %[[ERF]] : tensor<2x8xf32>
  %p = ag.probe "hidden" %erf : tensor<2x8xf32>
  // CHECK: ag.stop_gradient %[[P]] : tensor<2x8xf32>
  %stopped = ag.stop_gradient %p : tensor<2x8xf32>
  // CHECK: %[[SUM:.*]] = ag.sum %[[P]] : tensor<2x8xf32> -> tensor<f32>
  %sum = ag.sum %p : tensor<2x8xf32> -> tensor<f32>
  // CHECK: ag.sum %[[P]] axis = 1 : tensor<2x8xf32> -> tensor<2xf32>
  %rows = ag.sum %p axis = 1 : tensor<2x8xf32> -> tensor<2xf32>
  // CHECK: ag.mean %[[P]] axis = -2 keepdim : tensor<2x8xf32> -> tensor<1x8xf32>
  %cols = ag.mean %p axis = -2 keepdim : tensor<2x8xf32> -> tensor<1x8xf32>
  // CHECK: ag.mean %[[P]] keepdim : tensor<2x8xf32> -> tensor<1x1xf32>
  %all = ag.mean %p keepdim : tensor<2x8xf32> -> tensor<1x1xf32>
  // CHECK: ag.return %[[P]], %[[SUM]] : tensor<2x8xf32>, tensor<f32>
  ag.return %p, %sum : tensor<2x8xf32>, tensor<f32>
}

// CHECK-LABEL: ag.forward @host_interaction
ag.forward @host_interaction(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  // CHECK: %[[U:.*]] = ag.upload : tensor<2xf32>
  %u = ag.upload : tensor<2xf32>
  // CHECK: ag.upload constant : tensor<f32> = dense<1.000000e+00>
  %one = ag.upload constant : tensor<f32> = dense<1.0>
  // CHECK: ag.upload : tensor<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
  %seen = ag.upload : tensor<2xf32> = dense<[1.0, 2.0]>
  // CHECK: ag.download %[[U]] : tensor<2xf32>
  ag.download %u : tensor<2xf32>
  // CHECK: %[[E:.*]] = ag.eager "add"(%{{.*}}, %[[U]]) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %e = ag.eager "add" (%x, %u) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  ag.return %e : tensor<2xf32>
}

// CHECK-LABEL: ag.forward @packed
// CHECK-SAME: (%[[IN:.*]]: tensor<32xi8>) -> tensor<272xi8>
// CHECK-SAME: ag.input_layout = [#ag.segment<"x", [2, 4], f32, offset = 0>]
// CHECK-SAME: ag.output_layout = [#ag.segment<"y", [2, 4], f32, offset = 0>, #ag.segment<"s", [], f32, offset = 256>]
ag.forward @packed(%in: tensor<32xi8>) -> tensor<272xi8> attributes {
    ag.input_layout = [#ag.segment<"x", [2, 4], f32, offset = 0>],
    ag.output_layout = [#ag.segment<"y", [2, 4], f32, offset = 0>,
                        #ag.segment<"s", [], f32, offset = 256>]} {
  // CHECK: %[[V:.*]] = ag.input_view %[[IN]][0] : tensor<32xi8> -> tensor<2x4xf32>
  %x = ag.input_view %in[0] : tensor<32xi8> -> tensor<2x4xf32>
  %s = ag.sum %x : tensor<2x4xf32> -> tensor<f32>
  // CHECK: %[[OUT:.*]] = ag.pack_outputs %[[V]][0], %{{.*}}[256] : tensor<2x4xf32>, tensor<f32> -> tensor<272xi8>
  %out = ag.pack_outputs %x[0], %s[256] : tensor<2x4xf32>, tensor<f32> -> tensor<272xi8>
  // CHECK: ag.return %[[OUT]] : tensor<272xi8>
  ag.return %out : tensor<272xi8>
}

// CHECK-LABEL: ag.forward @index_status
// CHECK-SAME: attributes {ag.index_checks = [#ag.index_check<output = "index_check.0", op = "ag.get_rows", input = "ids", bound = 7, loc = "m.mlir:3:8">]}
ag.forward @index_status(%ids: tensor<4xi32> {ag.name = "ids"}) -> (tensor<2xi32> {ag.name = "index_check.0"}, tensor<f32> {ag.name = "p"})
    attributes {ag.index_checks = [#ag.index_check<output = "index_check.0", op = "ag.get_rows", input = "ids", bound = 7, loc = "m.mlir:3:8">]} {
  // CHECK: %[[S:.*]], %[[P:.*]] = ag.check_indices %{{.*}} {bound = 7 : i64, op = "ag.get_rows"} : tensor<4xi32> -> (tensor<2xi32>, tensor<f32>)
  %s, %p = ag.check_indices %ids {bound = 7 : i64, op = "ag.get_rows"} : tensor<4xi32> -> (tensor<2xi32>, tensor<f32>)
  // CHECK: ag.return %[[S]], %[[P]]
  ag.return %s, %p : tensor<2xi32>, tensor<f32>
}
