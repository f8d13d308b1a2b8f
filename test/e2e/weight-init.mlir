// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=PRINT
// RUN: %python -c "import os, sys; n = os.path.getsize(sys.argv[1]); print('capmod bytes', n); assert n < 200000, n" %t/m.capmod | FileCheck %s --check-prefix=SIZE
// RUN: capture-run %t/m.capmod --entry init --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s --entry init --compare %t/gpu --tolerance 0 | FileCheck %s --check-prefix=CMP
// RUN: capture-run %t/m.capmod --entry sum_big | FileCheck %s --check-prefix=BIG
// RUN: not capture-run %t/m.capmod --entry read_unset 2>&1 | FileCheck %s --check-prefix=UNSET
// RUN: not capture-interp %s --entry read_unset 2>&1 | FileCheck %s --check-prefix=UNSET-INTERP
// RUN: %python %S/../Inputs/write_npy.py %t/u.npy f32 "2" 3.0,4.0
// RUN: capture-run %t/m.capmod --entry read_unset --param unset=%t/u.npy | FileCheck %s --check-prefix=GIVEN

// Weight initializers are evaluated at load by the runtime and by the
// interpreter with the same code: the device's weights equal the
// interpreter's bit for bit (tolerance 0). A splat stays one value in the
// module file: the 16 MiB weight @big costs a few bytes. A weight without
// an initial value is refused until it is set.

// SIZE: capmod bytes
// PRINT: weight lin.weight [33, 7] (f32) trainable @ [{{[0-9]+}}, {{[0-9]+}}) linear(fan_in=7, seed=1){{$}}
// PRINT: weight c [6] (f32) @ [{{[0-9]+}}, {{[0-9]+}}) constant(value=-0.75){{$}}
// PRINT: weight big [4096, 1024] (f32) @ [{{[0-9]+}}, {{[0-9]+}}) constant(value=0.5){{$}}
// PRINT: weight unset [2] (f32) @ [{{[0-9]+}}, {{[0-9]+}}) unset{{$}}

// CMP-DAG: compare lin_w: {{.*}}: ok
// CMP-DAG: compare lin_b: {{.*}}: ok
// CMP-DAG: compare emb: {{.*}}: ok
// CMP-DAG: compare u: {{.*}}: ok
// CMP-DAG: compare c: {{.*}}: ok
// CMP-DAG: compare z: {{.*}}: ok

// 4096 * 1024 elements of 0.5.
// BIG: output s []: 2.09715e+06{{$}}

// UNSET: capture-run: error: entry 'read_unset' reads weight 'unset' [2] (f32) that the module gives no initial value and that was never set: set it with Module::setParam or setParams (capture-run: --param unset=FILE.npy), or give it an initializer in the model (ag.weight @unset ... = #ag.init<...>)
// UNSET-INTERP: error: reads weight @unset, which has no initial value and was not given: give it (--param unset=FILE.npy) or an initializer in the model (= #ag.init<...>)
// UNSET-INTERP: note: @unset is declared here

// GIVEN: output y [2]: 3 4{{$}}

ag.weight @lin.weight trainable : tensor<33x7xf32> = #ag.init<linear, fan_in = 7, seed = 1>
ag.weight @lin.bias trainable : tensor<33xf32> = #ag.init<linear, fan_in = 7, seed = 2>
ag.weight @emb : tensor<9x5xf32> = #ag.init<normal, mean = 0.5, std = 2.0, seed = 3>
ag.weight @u : tensor<17xf32> = #ag.init<uniform, low = -3.0, high = 1.0, seed = 4>
ag.weight @c : tensor<6xf32> = #ag.init<constant, value = -0.75>
ag.weight @z : tensor<6xf32> = #ag.init<zeros>
ag.weight @big : tensor<4096x1024xf32> = dense<0.5>
ag.weight @unset : tensor<2xf32>

ag.forward @init() -> (tensor<33x7xf32> {ag.name = "lin_w"}, tensor<33xf32> {ag.name = "lin_b"},
                       tensor<9x5xf32> {ag.name = "emb"}, tensor<17xf32> {ag.name = "u"},
                       tensor<6xf32> {ag.name = "c"}, tensor<6xf32> {ag.name = "z"}) {
  %w = ag.read_weight @lin.weight : tensor<33x7xf32>
  %b = ag.read_weight @lin.bias : tensor<33xf32>
  %e = ag.read_weight @emb : tensor<9x5xf32>
  %u = ag.read_weight @u : tensor<17xf32>
  %c = ag.read_weight @c : tensor<6xf32>
  %z = ag.read_weight @z : tensor<6xf32>
  ag.return %w, %b, %e, %u, %c, %z : tensor<33x7xf32>, tensor<33xf32>, tensor<9x5xf32>, tensor<17xf32>, tensor<6xf32>, tensor<6xf32>
}

ag.forward @sum_big() -> (tensor<f32> {ag.name = "s"}) {
  %w = ag.read_weight @big : tensor<4096x1024xf32>
  %s = ag.sum %w : tensor<4096x1024xf32> -> tensor<f32>
  ag.return %s : tensor<f32>
}

ag.forward @read_unset() -> (tensor<2xf32> {ag.name = "y"}) {
  %w = ag.read_weight @unset : tensor<2xf32>
  ag.return %w : tensor<2xf32>
}
