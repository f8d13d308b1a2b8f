ag.forward @rounding(%r: tensor<5x13x3xf32> {ag.name = "r"}, %k: tensor<8xf32> {ag.name = "k"})
    -> (tensor<5x13x3xf32> {ag.name = "floor_r"}, tensor<5x13x3xf32> {ag.name = "ceil_r"},
        tensor<8xf32> {ag.name = "floor_k"}, tensor<8xf32> {ag.name = "ceil_k"},
        tensor<5x13x3xf32> {ag.name = "mix"}) {
  %fr = ag.floor %r : tensor<5x13x3xf32>
  %cr = ag.ceil %r : tensor<5x13x3xf32>
  %fk = ag.floor %k : tensor<8xf32>
  %ck = ag.ceil %k : tensor<8xf32>
  %half = ag.constant dense<0.5> : tensor<f32>
  %h = ag.mul %r, %half : (tensor<5x13x3xf32>, tensor<f32>) -> tensor<5x13x3xf32>
  %fh = ag.floor %h : tensor<5x13x3xf32>
  %n = ag.neg %r : tensor<5x13x3xf32>
  %cn = ag.ceil %n : tensor<5x13x3xf32>
  %mix = ag.sub %fh, %cn : (tensor<5x13x3xf32>, tensor<5x13x3xf32>) -> tensor<5x13x3xf32>
  ag.return %fr, %cr, %fk, %ck, %mix
      : tensor<5x13x3xf32>, tensor<5x13x3xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<5x13x3xf32>
}


ag.forward @erf(%s: tensor<12011xf32> {ag.name = "s"}, %e: tensor<8xf32> {ag.name = "e"})
    -> (tensor<12011xf32> {ag.name = "erf_s"}, tensor<8xf32> {ag.name = "erf_e"},
        tensor<8xf32> {ag.name = "exact"}) {
  %es = ag.erf %s : tensor<12011xf32>
  %ee = ag.erf %e : tensor<8xf32>
  %want = ag.constant dense<[1.0, -1.0, 1.0, -1.0, 1.0, 1.0, 0.0, 1.0]> : tensor<8xf32>
  %exact = ag.compare eq, %ee, %want : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  ag.return %es, %ee, %exact : tensor<12011xf32>, tensor<8xf32>, tensor<8xf32>
}


ag.forward @gelu(%x: tensor<7x13xf32> {ag.name = "x"}, %w: tensor<13x6xf32> {ag.name = "w"})
    -> (tensor<7x6xf32> {ag.name = "gelu"}, tensor<f32> {ag.name = "total"}) {
  %z = ag.matmul %x, %w : (tensor<7x13xf32>, tensor<13x6xf32>) -> tensor<7x6xf32>
  %rs2 = ag.constant dense<0.707106769> : tensor<f32>
  %one = ag.constant dense<1.0> : tensor<f32>
  %half = ag.constant dense<0.5> : tensor<f32>
  %zs = ag.mul %z, %rs2 : (tensor<7x6xf32>, tensor<f32>) -> tensor<7x6xf32>
  %ez = ag.erf %zs : tensor<7x6xf32>
  %pe = ag.add %ez, %one : (tensor<7x6xf32>, tensor<f32>) -> tensor<7x6xf32>
  %hz = ag.mul %z, %half : (tensor<7x6xf32>, tensor<f32>) -> tensor<7x6xf32>
  %gelu = ag.mul %hz, %pe : (tensor<7x6xf32>, tensor<7x6xf32>) -> tensor<7x6xf32>
  %ex = ag.erf %x : tensor<7x13xf32>
  %total = ag.sum %ex : tensor<7x13xf32> -> tensor<f32>
  ag.return %gelu, %total : tensor<7x6xf32>, tensor<f32>
}
