ag.forward @f(%a: tensor<13x16xf32> {ag.name = "a"}, %w: tensor<60x16xf32> {ag.name = "w"},
              %r: tensor<1x12xf32> {ag.name = "r"}, %wr: tensor<64x12xf32> {ag.name = "wr"},
              %a2: tensor<9x20xf32> {ag.name = "a2"}, %b2: tensor<20x64xf32> {ag.name = "b2"},
              %at: tensor<7x12xf32> {ag.name = "at"}, %bt: tensor<7x60xf32> {ag.name = "bt"},
              %x1: tensor<1000x60xf32> {ag.name = "x1"}, %d1: tensor<1000x12xf32> {ag.name = "d1"},
              %x2: tensor<9x57xf32> {ag.name = "x2"}, %d2: tensor<9x12xf32> {ag.name = "d2"},
              %x3: tensor<20x64xf32> {ag.name = "x3"}, %d3: tensor<16x20xf32> {ag.name = "d3"},
              %x4: tensor<65x16xf32> {ag.name = "x4"}, %d4: tensor<65x32xf32> {ag.name = "d4"},
              %p: tensor<8x16xf32> {ag.name = "p"}, %q: tensor<16x61xf32> {ag.name = "q"},
              %u: tensor<64x10xf32> {ag.name = "u"}, %v: tensor<10x12xf32> {ag.name = "v"},
              %g: tensor<29x16xf32> {ag.name = "g"}, %h: tensor<14x16xf32> {ag.name = "h"})
    -> (tensor<13x60xf32> {ag.name = "awt"}, tensor<1x64xf32> {ag.name = "rowt"},
        tensor<9x64xf32> {ag.name = "ab"}, tensor<12x60xf32> {ag.name = "atb"},
        tensor<60x12xf32> {ag.name = "w1"}, tensor<60xf32> {ag.name = "bias1"},
        tensor<57x12xf32> {ag.name = "w2"}, tensor<57xf32> {ag.name = "bias2"},
        tensor<64x16xf32> {ag.name = "w3"}, tensor<64xf32> {ag.name = "bias3"},
        tensor<16x32xf32> {ag.name = "w4"}, tensor<16xf32> {ag.name = "bias4"},
        tensor<8x61xf32> {ag.name = "pq"}, tensor<64x12xf32> {ag.name = "uv"},
        tensor<29x14xf32> {ag.name = "ght"}) {
  %0 = ag.matmul %a, %w {transpose_b} : (tensor<13x16xf32>, tensor<60x16xf32>) -> tensor<13x60xf32>
  %1 = ag.matmul %r, %wr {transpose_b} : (tensor<1x12xf32>, tensor<64x12xf32>) -> tensor<1x64xf32>
  %2 = ag.matmul %a2, %b2 : (tensor<9x20xf32>, tensor<20x64xf32>) -> tensor<9x64xf32>
  %3 = ag.matmul %at, %bt {transpose_a} : (tensor<7x12xf32>, tensor<7x60xf32>) -> tensor<12x60xf32>
  %w1 = ag.matmul %x1, %d1 {transpose_a} : (tensor<1000x60xf32>, tensor<1000x12xf32>) -> tensor<60x12xf32>
  %s1 = ag.sum %x1 axis = 0 : tensor<1000x60xf32> -> tensor<60xf32>
  %w2 = ag.matmul %x2, %d2 {transpose_a} : (tensor<9x57xf32>, tensor<9x12xf32>) -> tensor<57x12xf32>
  %s2 = ag.sum %x2 axis = 0 : tensor<9x57xf32> -> tensor<57xf32>
  %w3 = ag.matmul %x3, %d3 {transpose_a, transpose_b} : (tensor<20x64xf32>, tensor<16x20xf32>) -> tensor<64x16xf32>
  %s3 = ag.sum %x3 axis = 0 : tensor<20x64xf32> -> tensor<64xf32>
  %w4 = ag.matmul %x4, %d4 {transpose_a} : (tensor<65x16xf32>, tensor<65x32xf32>) -> tensor<16x32xf32>
  %s4 = ag.sum %x4 axis = 0 : tensor<65x16xf32> -> tensor<16xf32>
  %pq = ag.matmul %p, %q : (tensor<8x16xf32>, tensor<16x61xf32>) -> tensor<8x61xf32>
  %uv = ag.matmul %u, %v : (tensor<64x10xf32>, tensor<10x12xf32>) -> tensor<64x12xf32>
  %ght = ag.matmul %g, %h {transpose_b} : (tensor<29x16xf32>, tensor<14x16xf32>) -> tensor<29x14xf32>
  ag.return %0, %1, %2, %3, %w1, %s1, %w2, %s2, %w3, %s3, %w4, %s4, %pq, %uv, %ght : tensor<13x60xf32>, tensor<1x64xf32>, tensor<9x64xf32>, tensor<12x60xf32>, tensor<60x12xf32>, tensor<60xf32>, tensor<57x12xf32>, tensor<57xf32>, tensor<64x16xf32>, tensor<64xf32>, tensor<16x32xf32>, tensor<16xf32>, tensor<8x61xf32>, tensor<64x12xf32>, tensor<29x14xf32>
}
