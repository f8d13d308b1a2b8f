// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod
// RUN: %python %S/Inputs/rounding_inputs.py %t
// RUN: %python %S/../Inputs/write_npy.py %t/k.npy f32 8 -0.5,2.5,-2.5,3,-1e-30,-7.5,-inf,nan
// RUN: %python %S/../Inputs/write_npy.py %t/e.npy f32 8 inf,-inf,3.92,-4.5,100,3.9,-0.0,nan
// RUN: capture-run %t/m.capmod --entry rounding --input r=%t/r.npy --input k=%t/k.npy --output-dir %t/rounding | FileCheck %s --check-prefix=ROUND
// RUN: capture-interp %s --entry rounding --input r=%t/r.npy --input k=%t/k.npy --compare %t/rounding --tolerance 0 | FileCheck %s --check-prefix=ROUND-CMP
// RUN: capture-run %t/m.capmod --entry erf --input s=%t/s.npy --input e=%t/e.npy --output-dir %t/erf | FileCheck %s --check-prefix=ERF
// RUN: capture-interp %s --entry erf --input s=%t/s.npy --input e=%t/e.npy --compare %t/erf --tolerance 2e-7 | FileCheck %s --check-prefix=ERF-CMP
// RUN: capture-interp %s --entry gelu --make-inputs %t/in --seed 3
// RUN: capture-run %t/m.capmod --entry gelu --input x=%t/in/x.npy --input w=%t/in/w.npy --output-dir %t/gelu
// RUN: capture-interp %s --entry gelu --input x=%t/in/x.npy --input w=%t/in/w.npy --compare %t/gelu --tolerance 1e-5 | FileCheck %s --check-prefix=GELU-CMP

// End to end: ag.floor and ag.ceil (GLSL Floor / Ceil) exactly equal to the
// interpreter's std::floor / std::ceil on an awkward [5, 13, 3] of integers,
// halves on both sides of zero, the floats next to integers, signed zeros,
// values past 2^23, the infinities and NaN; alone and fused in one
// elementwise chain. ag.erf (a fitted approximation in the kernel, no GLSL
// Erf) against std::erf over [-6, 6] in steps of 1e-3 and the special
// values, within 2e-7 (absolute: erf's scale is 1); exactly +-1 from
// |x| = 3.92 on (where f32 erf reaches 1) but not at 3.9, odd (erf(-0) is
// -0), NaN in NaN out; and the exact GELU in a matmul's epilogue and erf
// feeding a sum.

// ROUND: output floor_k [8]: -1 2 -3 3 -1 -8 -inf {{-?nan}}{{$}}
// ROUND: output ceil_k [8]: -0 3 -2 3 -0 -7 -inf {{-?nan}}{{$}}
// ROUND-CMP-DAG: compare floor_r: {{.*}}: ok
// ROUND-CMP-DAG: compare ceil_r: {{.*}}: ok
// ROUND-CMP-DAG: compare floor_k: {{.*}}: ok
// ROUND-CMP-DAG: compare ceil_k: {{.*}}: ok
// ROUND-CMP-DAG: compare mix: {{.*}}: ok
// ROUND-CMP-NOT: FAIL

ag.forward @rounding(%r: tensor<5x13x3xf32> {ag.name = "r"}, %k: tensor<8xf32> {ag.name = "k"})
    -> (tensor<5x13x3xf32> {ag.name = "floor_r"}, tensor<5x13x3xf32> {ag.name = "ceil_r"},
        tensor<8xf32> {ag.name = "floor_k"}, tensor<8xf32> {ag.name = "ceil_k"},
        tensor<5x13x3xf32> {ag.name = "mix"}) {
  %fr = ag.floor %r : tensor<5x13x3xf32>
  %cr = ag.ceil %r : tensor<5x13x3xf32>
  %fk = ag.floor %k : tensor<8xf32>
  %ck = ag.ceil %k : tensor<8xf32>
  // One fused chain: floor(r * 0.5) - ceil(-r).
  %half = ag.constant dense<0.5> : tensor<f32>
  %h = ag.mul %r, %half : (tensor<5x13x3xf32>, tensor<f32>) -> tensor<5x13x3xf32>
  %fh = ag.floor %h : tensor<5x13x3xf32>
  %n = ag.neg %r : tensor<5x13x3xf32>
  %cn = ag.ceil %n : tensor<5x13x3xf32>
  %mix = ag.sub %fh, %cn : (tensor<5x13x3xf32>, tensor<5x13x3xf32>) -> tensor<5x13x3xf32>
  ag.return %fr, %cr, %fk, %ck, %mix
      : tensor<5x13x3xf32>, tensor<5x13x3xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<5x13x3xf32>
}

// e = [inf, -inf, 3.92, -4.5, 100, 3.9, -0, NaN]; `exact` is 1 where erf(e)
// is exactly [1, -1, 1, -1, 1, 1, 0, 1]: not at 3.9 (0.99999994), nor NaN.
// ERF: output erf_e [8]: 1 -1 1 -1 1 1 -0 {{-?nan}}{{$}}
// ERF: output exact [8]: 1 1 1 1 1 0 1 0{{$}}
// ERF-CMP-DAG: compare erf_s: {{.*}}: ok
// ERF-CMP-DAG: compare erf_e: {{.*}}: ok
// ERF-CMP-DAG: compare exact: {{.*}}: ok
// ERF-CMP-NOT: FAIL

ag.forward @erf(%s: tensor<12011xf32> {ag.name = "s"}, %e: tensor<8xf32> {ag.name = "e"})
    -> (tensor<12011xf32> {ag.name = "erf_s"}, tensor<8xf32> {ag.name = "erf_e"},
        tensor<8xf32> {ag.name = "exact"}) {
  %es = ag.erf %s : tensor<12011xf32>
  %ee = ag.erf %e : tensor<8xf32>
  %want = ag.constant dense<[1.0, -1.0, 1.0, -1.0, 1.0, 1.0, 0.0, 1.0]> : tensor<8xf32>
  %exact = ag.compare eq, %ee, %want : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  ag.return %es, %ee, %exact : tensor<12011xf32>, tensor<8xf32>, tensor<8xf32>
}

// GELU-CMP-DAG: compare gelu: {{.*}}: ok
// GELU-CMP-DAG: compare total: {{.*}}: ok
// GELU-CMP-NOT: FAIL

ag.forward @gelu(%x: tensor<7x13xf32> {ag.name = "x"}, %w: tensor<13x6xf32> {ag.name = "w"})
    -> (tensor<7x6xf32> {ag.name = "gelu"}, tensor<f32> {ag.name = "total"}) {
  // gelu(z) = 0.5 * z * (1 + erf(z / sqrt(2))), z = x @ w.
  %z = ag.matmul %x, %w : (tensor<7x13xf32>, tensor<13x6xf32>) -> tensor<7x6xf32>
  %rs2 = ag.constant dense<0.707106769> : tensor<f32>
  %one = ag.constant dense<1.0> : tensor<f32>
  %half = ag.constant dense<0.5> : tensor<f32>
  %zs = ag.mul %z, %rs2 : (tensor<7x6xf32>, tensor<f32>) -> tensor<7x6xf32>
  %ez = ag.erf %zs : tensor<7x6xf32>
  %pe = ag.add %ez, %one : (tensor<7x6xf32>, tensor<f32>) -> tensor<7x6xf32>
  %hz = ag.mul %z, %half : (tensor<7x6xf32>, tensor<f32>) -> tensor<7x6xf32>
  %gelu = ag.mul %hz, %pe : (tensor<7x6xf32>, tensor<7x6xf32>) -> tensor<7x6xf32>
  // erf as a reduction's producer.
  %ex = ag.erf %x : tensor<7x13xf32>
  %total = ag.sum %ex : tensor<7x13xf32> -> tensor<f32>
  ag.return %gelu, %total : tensor<7x6xf32>, tensor<f32>
}
