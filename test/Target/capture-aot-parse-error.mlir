// A lexer error inside an optional parse: MLIR's parser reports it and
// still returns a module; capture-aot refuses the input (found by the
// compiler's fuzzer, fuzz/regressions/mlir/stray-at-after-attribute.mlir).
// RUN: not capture-aot %s -o %t.capmod 2>&1 | FileCheck %s
// CHECK: error: @ identifier expected to start with letter or '_'
// CHECK-NOT: internal error
ag.weight @w : tensor<2xf32> = #ag.init<constant, value = 0.0>@
