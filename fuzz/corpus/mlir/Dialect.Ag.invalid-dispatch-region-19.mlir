"ag.forward"() <{arg_attrs = [{ag.name = "x"}], res_attrs = [{ag.name = "y"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}> ({
^bb0(%x: tensor<4xf32>):
  "ag.dispatch_region"(%x) <{kind = 1 : i32}> ({
  ^bb0(%a: tensor<4xf32>):
    "ag.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  "ag.return"(%x) : (tensor<4xf32>) -> ()
}) : () -> ()
