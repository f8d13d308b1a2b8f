ag.forward @shapes(%x: tensor<2x3x4xf32> {ag.name = "x"}, %y: tensor<2x3x5xf32> {ag.name = "y"},
                   %z: tensor<2x3x1xf32> {ag.name = "z"})
    -> (tensor<4x6xf32> {ag.name = "t2"}, tensor<4x2x3xf32> {ag.name = "t3"},
        tensor<2x3x10xf32> {ag.name = "cat"}, tensor<4x3x4xf32> {ag.name = "cat0"},
        tensor<2x3x6xf32> {ag.name = "sl"}, tensor<2x2x4xf32> {ag.name = "sl1"},
        tensor<6x4xf32> {ag.name = "xr"}, tensor<24xf32> {ag.name = "er"},
        tensor<6x6xf32> {ag.name = "mm"}, tensor<24xf32> {ag.name = "live"}) {
  %x2 = ag.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %t2 = ag.transpose %x2 permutation = [1, 0] : tensor<6x4xf32> -> tensor<4x6xf32>
  %t3 = ag.transpose %x permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %cat = ag.concat %x, %y, %z axis = -1 : (tensor<2x3x4xf32>, tensor<2x3x5xf32>, tensor<2x3x1xf32>) -> tensor<2x3x10xf32>
  %cat0 = ag.concat %x, %x axis = 0 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<4x3x4xf32>
  %sl = ag.slice %cat axis = -1 start = 3 end = 9 : tensor<2x3x10xf32> -> tensor<2x3x6xf32>
  %sl1 = ag.slice %x axis = 1 start = 1 end = 3 : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
  %xr = ag.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %e = ag.exp %x : tensor<2x3x4xf32>
  %er = ag.reshape %e : tensor<2x3x4xf32> -> tensor<24xf32>
  %sr = ag.reshape %sl : tensor<2x3x6xf32> -> tensor<6x6xf32>
  %mm = ag.matmul %sr, %sr : (tensor<6x6xf32>, tensor<6x6xf32>) -> tensor<6x6xf32>
  %n = ag.neg %x : tensor<2x3x4xf32>
  %nr = ag.reshape %n : tensor<2x3x4xf32> -> tensor<24xf32>
  %m = ag.sqrt %e : tensor<2x3x4xf32>
  %mr = ag.reshape %m : tensor<2x3x4xf32> -> tensor<24xf32>
  %pr = ag.probe "pr" %mr : tensor<24xf32>
  %live = ag.add %nr, %pr : (tensor<24xf32>, tensor<24xf32>) -> tensor<24xf32>
  ag.return %t2, %t3, %cat, %cat0, %sl, %sl1, %xr, %er, %mm, %live
      : tensor<4x6xf32>, tensor<4x2x3xf32>, tensor<2x3x10xf32>, tensor<4x3x4xf32>,
        tensor<2x3x6xf32>, tensor<2x2x4xf32>, tensor<6x4xf32>, tensor<24xf32>,
        tensor<6x6xf32>, tensor<24xf32>
}

ag.forward @probe_pr(%x: tensor<2x3x4xf32> {ag.name = "x"}) -> (tensor<24xf32> {ag.name = "pr"}) {
  %e = ag.exp %x : tensor<2x3x4xf32>
  %m = ag.sqrt %e : tensor<2x3x4xf32>
  %mr = ag.reshape %m : tensor<2x3x4xf32> -> tensor<24xf32>
  ag.return %mr : tensor<24xf32>
}
