ag.weight @w : tensor<?x4xf32>
