// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod
// RUN: capture-run %t/m.capmod --info --json | FileCheck %s --check-prefix=INFO
// RUN: capture-interp %s --entry heavy --make-inputs %t/heavy
// RUN: capture-interp %s --entry light --make-inputs %t/light
// RUN: env -u LP_NUM_THREADS capture-run %t/m.capmod --entry heavy --input x=%t/heavy/x.npy --device cpu | FileCheck %s --check-prefix=POOL
// RUN: env -u LP_NUM_THREADS capture-run %t/m.capmod --entry light --input x=%t/light/x.npy --device cpu --cpu-threads auto | FileCheck %s --check-prefix=POOL
// RUN: env -u LP_NUM_THREADS capture-run %t/m.capmod --entry light --input x=%t/light/x.npy --device cpu --cpu-threads 0 | FileCheck %s --check-prefix=ZERO
// RUN: sed -n '/^ag.forward @light/,/^}/p' %s > %t/light.mlir
// RUN: capture-aot %t/light.mlir -o %t/light.capmod
// RUN: env -u LP_NUM_THREADS capture-run %t/light.capmod --input x=%t/light/x.npy --device cpu | FileCheck %s --check-prefix=SMALL

// The module writer stores each dispatch's work estimate (multiply-adds
// plus 8 per bound float); the census sums them per entry, and capture-run
// chooses llvmpipe's threads from them (--cpu-threads auto, the default):
// the pool when the module's heaviest entry averages 1M or more per
// dispatch, whichever entry runs. heavy: 128 * 256 * 256 = 8388608
// multiply-adds, 8 * (32768 + 65536 + 32768) for its floats: 9437184.
// light: 8 * (8 + 8) = 128.

// INFO: "entries":[{"name":"heavy",{{[^}]*}}"work":9437184},{"name":"light",{{[^}]*}}"work":128}]

// POOL: llvmpipe threads: driver default (auto, entry 'heavy': 9.4M work per dispatch >= 1.0M: llvmpipe's pool)
// ZERO: llvmpipe threads: 0 (--cpu-threads)
// SMALL: llvmpipe threads: 0 (auto, entry 'light': 128 work per dispatch < 1.0M: the submitting thread)

ag.weight @w : tensor<256x256xf32> = #ag.init<linear, fan_in = 256, seed = 1>
ag.forward @heavy(%x: tensor<128x256xf32> {ag.name = "x"}) -> (tensor<128x256xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<256x256xf32>
  %y = ag.matmul %x, %w {transpose_b} : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  ag.return %y : tensor<128x256xf32>
}

ag.forward @light(%x: tensor<8xf32> {ag.name = "x"}) -> (tensor<8xf32> {ag.name = "y"}) {
  %y = ag.neg %x : tensor<8xf32>
  ag.return %y : tensor<8xf32>
}
