// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=IR
// RUN: %python -c "import os, sys; n = os.path.getsize(sys.argv[1]); print('capmod bytes', n); assert n < 100000, n" %t/m.capmod | FileCheck %s --check-prefix=SIZE
// RUN: %python -c "import numpy as np, sys; np.save(sys.argv[1], np.ones((2, 1024), np.float32))" %t/x.npy
// RUN: capture-run %t/m.capmod --input x=%t/x.npy | FileCheck %s
// RUN: capture-interp %s --input x=%t/x.npy | FileCheck %s --check-prefix=INTERP

// A 4 MiB splat constant read by a matmul lives in the Constants buffer:
// the module file records it as one fill (offset, bytes, value), after the
// other constants' bytes, and the runtime fills it at load.

// IR: buffer 0: Constants, 4194560 bytes
// IR: constants: 16 bytes, fill [256, 4194560) = 0x3f000000{{$}}
// SIZE: capmod bytes
// 2 rows of 1024 ones times 0.5 summed over 1024: 512 each, 1048576 in all;
// the non-splat constant [1, 2, 3, 4] (bytes in the file) is added to the
// first four of each row.
// CHECK: output s []: 1.04858e+06{{$}}
// CHECK: output t [2, 4]: 513 514 515 516 513 514 515 516{{$}}
// INTERP: output s []: 1.04858e+06{{$}}
// INTERP: output t [2, 4]: 513 514 515 516 513 514 515 516{{$}}

ag.forward @f(%x: tensor<2x1024xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "s"}, tensor<2x4xf32> {ag.name = "t"}) {
  %c = ag.constant dense<0.5> : tensor<1024x1024xf32>
  %y = ag.matmul %x, %c : (tensor<2x1024xf32>, tensor<1024x1024xf32>) -> tensor<2x1024xf32>
  %s = ag.sum %y : tensor<2x1024xf32> -> tensor<f32>
  %k = ag.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y4 = ag.slice %y axis = 1 start = 0 end = 4 : tensor<2x1024xf32> -> tensor<2x4xf32>
  %t = ag.add %y4, %k : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  ag.return %s, %t : tensor<f32>, tensor<2x4xf32>
}
