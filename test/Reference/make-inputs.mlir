// --make-inputs writes the same data on every machine for a seed, and the
// written files feed a later evaluation.
// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-interp %s --make-inputs %t/a --seed 7 | FileCheck %s --check-prefix=MAKE
// RUN: capture-interp %s --make-inputs %t/b --seed 7
// RUN: capture-interp %s --make-inputs %t/c --seed 8
// RUN: cmp %t/a/x.npy %t/b/x.npy
// RUN: not cmp %t/a/x.npy %t/c/x.npy
// RUN: not cmp %t/a/x.npy %t/a/bias.npy
// RUN: capture-interp %s --input x=%t/a/x.npy --input bias=%t/a/bias.npy | FileCheck %s
// RUN: capture-interp %s --input x=%t/a/x.npy --input bias=%t/a/bias.npy --precision f64 | FileCheck %s --check-prefix=RANGE

// MAKE: wrote input x [2, 3] to {{.*}}x.npy
// MAKE-NEXT: wrote input bias [2, 3] to {{.*}}bias.npy

// Pins the generator (splitmix64 seeded with 7 ^ FNV-1a("x"), the top 24
// bits of each draw scaled to [-1, 1)).
// CHECK: output xcopy [2, 3]: 0.482582 0.66324 0.246617 0.0613623 -0.594447 0.838356{{$}}

// Every value lies in [-1, 1].
// RANGE: output in_range []: 1{{$}}
ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}, %bias: tensor<2x3xf32> {ag.name = "bias"})
    -> (tensor<2x3xf32> {ag.name = "xcopy"}, tensor<f32> {ag.name = "in_range"}) {
  // sum(relu(|v| - 1) + 1) / 12 is 1 exactly when every |v| <= 1.
  %sq = ag.square %x : tensor<2x3xf32>
  %abs = ag.sqrt %sq : tensor<2x3xf32>
  %one = ag.constant dense<1.0> : tensor<f32>
  %d = ag.sub %abs, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %r = ag.relu %d : tensor<2x3xf32>
  %sq2 = ag.square %bias : tensor<2x3xf32>
  %abs2 = ag.sqrt %sq2 : tensor<2x3xf32>
  %d2 = ag.sub %abs2, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %r2 = ag.relu %d2 : tensor<2x3xf32>
  %both = ag.add %r, %r2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %plus = ag.add %both, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %m = ag.mean %plus : tensor<2x3xf32> -> tensor<f32>
  ag.return %x, %m : tensor<2x3xf32>, tensor<f32>
}
