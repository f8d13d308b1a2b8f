ag.weight @w trainable : tensor<4x8xf32>
ag.weight @b : tensor<8xf32> = dense<0.5>

ag.forward @compute(%x: tensor<2x4xf32> {ag.name = "x"}, %y: tensor<2x8xf32> {ag.name = "y"})
    -> (tensor<2x8xf32> {ag.name = "out"}, tensor<f32> {ag.name = "total"}) {
  %c = ag.constant dense<1.0> : tensor<8xf32>
  %w = ag.read_weight @w : tensor<4x8xf32>
  %mm = ag.matmul %x, %w : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  %xt = ag.matmul %x, %x {transpose_b} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %tx = ag.matmul %x, %x {transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %add = ag.add %mm, %c : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %sub = ag.sub %add, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %mul = ag.mul %sub, %sub : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %div = ag.div %c, %mul : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %neg = ag.neg %div : tensor<2x8xf32>
  %exp = ag.exp %neg : tensor<2x8xf32>
  %log = ag.log %exp : tensor<2x8xf32>
  %tanh = ag.tanh %log : tensor<2x8xf32>
  %sig = ag.sigmoid %tanh : tensor<2x8xf32>
  %relu = ag.relu %sig : tensor<2x8xf32>
  %sqrt = ag.sqrt %relu : tensor<2x8xf32>
  %sq = ag.square %sqrt : tensor<2x8xf32>
  %floor = ag.floor %sq : tensor<2x8xf32>
  %ceil = ag.ceil %floor : tensor<2x8xf32>
  %erf = ag.erf %ceil : tensor<2x8xf32>
  %p = ag.probe "hidden" %erf : tensor<2x8xf32>
  %stopped = ag.stop_gradient %p : tensor<2x8xf32>
  %sum = ag.sum %p : tensor<2x8xf32> -> tensor<f32>
  %rows = ag.sum %p axis = 1 : tensor<2x8xf32> -> tensor<2xf32>
  %cols = ag.mean %p axis = -2 keepdim : tensor<2x8xf32> -> tensor<1x8xf32>
  %all = ag.mean %p keepdim : tensor<2x8xf32> -> tensor<1x1xf32>
  ag.return %p, %sum : tensor<2x8xf32>, tensor<f32>
}

ag.forward @host_interaction(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %u = ag.upload : tensor<2xf32>
  %one = ag.upload constant : tensor<f32> = dense<1.0>
  %seen = ag.upload : tensor<2xf32> = dense<[1.0, 2.0]>
  ag.download %u : tensor<2xf32>
  %e = ag.eager "add" (%x, %u) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  ag.return %e : tensor<2xf32>
}

ag.forward @packed(%in: tensor<32xi8>) -> tensor<272xi8> attributes {
    ag.input_layout = [#ag.segment<"x", [2, 4], f32, offset = 0>],
    ag.output_layout = [#ag.segment<"y", [2, 4], f32, offset = 0>,
                        #ag.segment<"s", [], f32, offset = 256>]} {
  %x = ag.input_view %in[0] : tensor<32xi8> -> tensor<2x4xf32>
  %s = ag.sum %x : tensor<2x4xf32> -> tensor<f32>
  %out = ag.pack_outputs %x[0], %s[256] : tensor<2x4xf32>, tensor<f32> -> tensor<272xi8>
  ag.return %out : tensor<272xi8>
}

ag.forward @index_status(%ids: tensor<4xi32> {ag.name = "ids"}) -> (tensor<2xi32> {ag.name = "index_check.0"}, tensor<f32> {ag.name = "p"})
    attributes {ag.index_checks = [#ag.index_check<output = "index_check.0", op = "ag.get_rows", input = "ids", bound = 7, loc = "m.mlir:3:8">]} {
  %s, %p = ag.check_indices %ids {bound = 7 : i64, op = "ag.get_rows"} : tensor<4xi32> -> (tensor<2xi32>, tensor<f32>)
  ag.return %s, %p : tensor<2xi32>, tensor<f32>
}
