// --compare checks every output against DIR/<name>.npy with a relative
// tolerance; the reference files here come from earlier runs.
// RUN: rm -rf %t
// RUN: capture-interp %s --entry params --output-dir %t/params
// RUN: capture-interp %s --entry net --output-dir %t/ref

// Identical, and within tolerance of a double-precision run.
// RUN: capture-interp %s --entry net --compare %t/ref | FileCheck %s --check-prefix=SAME
// RUN: capture-interp %s --entry net --compare %t/ref --precision f64 | FileCheck %s --check-prefix=F64
// SAME: compare y: max abs err 0, scale 3, relative 0: ok
// SAME-NEXT: compare s: max abs err 0, scale 5, relative 0: ok
// F64: compare y: {{.*}}: ok
// F64: compare s: {{.*}}: ok

// w = [4.4, 9] moves y[0] from 2 to sqrt(4.4) = 2.09762.
// RUN: not capture-interp %s --entry net --param w=%t/params/far.npy --compare %t/ref | FileCheck %s --check-prefix=FAR
// RUN: capture-interp %s --entry net --param w=%t/params/far.npy --compare %t/ref --tolerance 0.05 | FileCheck %s --check-prefix=LOOSE
// FAR: compare y: max abs err 0.0976176, scale 3, relative 0.0325392: FAIL
// FAR-NEXT: compare s: max abs err 0.0976176, scale 5.09762, relative 0.0191497: FAIL
// LOOSE: compare y: {{.*}}: ok
// LOOSE: compare s: {{.*}}: ok

// NaN in the same place on both sides agrees; on one side only it fails.
// RUN: capture-interp %s --entry net --param w=%t/params/neg.npy --output-dir %t/nan
// RUN: capture-interp %s --entry net --param w=%t/params/neg.npy --compare %t/nan | FileCheck %s --check-prefix=NAN-SAME
// RUN: not capture-interp %s --entry net --compare %t/nan | FileCheck %s --check-prefix=NAN-ONE
// NAN-SAME: compare y: max abs err 0, scale 3, relative 0: ok
// NAN-SAME: compare s: max abs err 0, scale 1, relative 0: ok
// NAN-ONE: compare y: 1 value(s) non-finite on one side only (first at index 0: reference 2, compared nan)
// NAN-ONE-NEXT: compare y: max abs err 0, scale 3, relative 0: FAIL
// NAN-ONE-NEXT: compare s: 1 value(s) non-finite on one side only (first at index 0: reference 5, compared nan)
// NAN-ONE-NEXT: compare s: max abs err 0, scale 5, relative 0: FAIL

// A missing file and a shape mismatch are errors.
// RUN: not capture-interp %s --entry net --compare %t/params 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: capture-interp: error: compare y: cannot open '{{.*}}y.npy'
// MISSING: capture-interp: error: compare s: cannot open '{{.*}}s.npy'
// RUN: capture-interp %s --entry wide --output-dir %t/wide
// RUN: not capture-interp %s --entry net --compare %t/wide 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: capture-interp: error: compare y: {{.*}}y.npy has shape [3], but output 'y' has shape [2]
// SHAPE: compare s: max abs err 1, scale 5, relative 0.2: FAIL

ag.weight @w : tensor<2xf32> = dense<[4.0, 9.0]>

ag.forward @net() -> (tensor<2xf32> {ag.name = "y"}, tensor<f32> {ag.name = "s"}) {
  %w = ag.read_weight @w : tensor<2xf32>
  %y = ag.sqrt %w : tensor<2xf32>
  %s = ag.sum %y : tensor<2xf32> -> tensor<f32>
  ag.return %y, %s : tensor<2xf32>, tensor<f32>
}

// Same output names as @net, but "y" has another shape.
ag.forward @wide() -> (tensor<3xf32> {ag.name = "y"}, tensor<f32> {ag.name = "s"}) {
  %y = ag.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %s = ag.constant dense<4.0> : tensor<f32>
  ag.return %y, %s : tensor<3xf32>, tensor<f32>
}

// Values for @w.
ag.forward @params() -> (tensor<2xf32> {ag.name = "far"}, tensor<2xf32> {ag.name = "neg"}) {
  %far = ag.constant dense<[4.4, 9.0]> : tensor<2xf32>
  %neg = ag.constant dense<[-1.0, 9.0]> : tensor<2xf32>
  ag.return %far, %neg : tensor<2xf32>, tensor<2xf32>
}
