ag.weight @w : tensor<2xindex>
