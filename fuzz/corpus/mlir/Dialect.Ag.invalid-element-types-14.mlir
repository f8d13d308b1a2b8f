ag.weight @w : tensor<2xi1>
