ag.forward @f(%x: tensor<130x7xf32> {ag.name = "x"}, %v: tensor<9xf32> {ag.name = "v"})
    -> (tensor<130x7xf32> {ag.name = "sm_last"}, tensor<130x7xf32> {ag.name = "lsm_last"},
        tensor<10x13x7xf32> {ag.name = "sm_first"}, tensor<10x13x7xf32> {ag.name = "lsm_mid"},
        tensor<130x7xf32> {ag.name = "sm_shift"}, tensor<130x7xf32> {ag.name = "lsm_shift"},
        tensor<130x7xf32> {ag.name = "sm_big"}, tensor<130x7xf32> {ag.name = "lsm_big"},
        tensor<9xf32> {ag.name = "sm_v"}, tensor<9xf32> {ag.name = "lsm_v"}) {
  %k = ag.constant dense<1000.0> : tensor<1xf32>
  %c = ag.constant dense<100.0> : tensor<1xf32>
  %0 = ag.softmax %x axis = -1 : tensor<130x7xf32>
  %1 = ag.log_softmax %x axis = 1 : tensor<130x7xf32>
  %x3 = ag.reshape %x : tensor<130x7xf32> -> tensor<10x13x7xf32>
  %2 = ag.softmax %x3 axis = -3 : tensor<10x13x7xf32>
  %3 = ag.log_softmax %x3 axis = 1 : tensor<10x13x7xf32>
  %shift = ag.add %x, %c : (tensor<130x7xf32>, tensor<1xf32>) -> tensor<130x7xf32>
  %s0 = ag.softmax %shift axis = -1 : tensor<130x7xf32>
  %s1 = ag.log_softmax %shift axis = -1 : tensor<130x7xf32>
  %big = ag.mul %x, %k : (tensor<130x7xf32>, tensor<1xf32>) -> tensor<130x7xf32>
  %4 = ag.softmax %big axis = -1 : tensor<130x7xf32>
  %5 = ag.log_softmax %big axis = -1 : tensor<130x7xf32>
  %6 = ag.softmax %v axis = 0 : tensor<9xf32>
  %7 = ag.log_softmax %v axis = -1 : tensor<9xf32>
  ag.return %0, %1, %2, %3, %s0, %s1, %4, %5, %6, %7
      : tensor<130x7xf32>, tensor<130x7xf32>, tensor<10x13x7xf32>, tensor<10x13x7xf32>,
        tensor<130x7xf32>, tensor<130x7xf32>, tensor<130x7xf32>, tensor<130x7xf32>, tensor<9xf32>, tensor<9xf32>
}
