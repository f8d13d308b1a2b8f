ag.forward @f(%x1: tensor<352x12xf32> {ag.name = "x1"}, %d1: tensor<352x20xf32> {ag.name = "d1"},
              %x2: tensor<320x13xf32> {ag.name = "x2"}, %d2: tensor<320x7xf32> {ag.name = "d2"},
              %x3: tensor<1x4100xf32> {ag.name = "x3"}, %d3: tensor<1x3xf32> {ag.name = "d3"},
              %x4: tensor<70000x3xf32> {ag.name = "x4"}, %d4: tensor<70000x2xf32> {ag.name = "d4"})
    -> (tensor<12x20xf32> {ag.name = "w1"}, tensor<12xf32> {ag.name = "b1"},
        tensor<13x7xf32> {ag.name = "w2"}, tensor<13xf32> {ag.name = "b2"},
        tensor<4100x3xf32> {ag.name = "w3"}, tensor<4100xf32> {ag.name = "b3"},
        tensor<3x2xf32> {ag.name = "w4"}, tensor<3xf32> {ag.name = "b4"},
        tensor<12x20xf32> {ag.name = "r1"}, tensor<12xf32> {ag.name = "rb1"}) {
  %b1 = ag.sum %x1 axis = 0 : tensor<352x12xf32> -> tensor<12xf32>
  %w1 = ag.matmul %x1, %d1 {transpose_a} : (tensor<352x12xf32>, tensor<352x20xf32>) -> tensor<12x20xf32>
  %w2 = ag.matmul %x2, %d2 {transpose_a} : (tensor<320x13xf32>, tensor<320x7xf32>) -> tensor<13x7xf32>
  %b2 = ag.sum %x2 axis = 0 : tensor<320x13xf32> -> tensor<13xf32>
  %b3 = ag.sum %x3 axis = 0 : tensor<1x4100xf32> -> tensor<4100xf32>
  %w3 = ag.matmul %x3, %d3 {transpose_a} : (tensor<1x4100xf32>, tensor<1x3xf32>) -> tensor<4100x3xf32>
  %b4 = ag.sum %x4 axis = 0 : tensor<70000x3xf32> -> tensor<3xf32>
  %w4 = ag.matmul %x4, %d4 {transpose_a} : (tensor<70000x3xf32>, tensor<70000x2xf32>) -> tensor<3x2xf32>
  %x1n = ag.neg %x1 : tensor<352x12xf32>
  %m = ag.matmul %x1n, %d1 {transpose_a} : (tensor<352x12xf32>, tensor<352x20xf32>) -> tensor<12x20xf32>
  %r1 = ag.relu %m : tensor<12x20xf32>
  %rb1 = ag.sum %x1n axis = 0 : tensor<352x12xf32> -> tensor<12xf32>
  ag.return %w1, %b1, %w2, %b2, %w3, %b3, %w4, %b4, %r1, %rb1 : tensor<12x20xf32>, tensor<12xf32>, tensor<13x7xf32>, tensor<13xf32>, tensor<4100x3xf32>, tensor<4100xf32>, tensor<3x2xf32>, tensor<3xf32>, tensor<12x20xf32>, tensor<12xf32>
}
