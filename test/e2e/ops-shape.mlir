// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod
// RUN: capture-interp %s --entry shapes --make-inputs %t/in --seed 5
// RUN: capture-run %t/m.capmod --entry shapes --input x=%t/in/x.npy --input y=%t/in/y.npy --input z=%t/in/z.npy --probe pr --output-dir %t/gpu | FileCheck %s --check-prefix=REPLAY
// RUN: capture-interp %s --entry shapes --input x=%t/in/x.npy --input y=%t/in/y.npy --input z=%t/in/z.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s --check-prefix=CMP
// RUN: capture-interp %s --entry probe_pr --input x=%t/in/x.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s --check-prefix=PROBE

// End to end: ag.transpose (2-D and 3-D permutations), ag.concat (three
// inputs along a negative axis, two along axis 0), ag.slice (crossing the
// concat's boundaries, negative axis) and ag.reshape, which has no kernel:
// a reshaped input returned as an output (copied), a reshaped compute
// result returned as an output (written in place), a reshape feeding a
// matmul, a reshape whose root must stay live past later allocations, and
// a probe of a reshape.

// REPLAY: probe pr [24]:

// CMP-DAG: compare t2: {{.*}}: ok
// CMP-DAG: compare t3: {{.*}}: ok
// CMP-DAG: compare cat: {{.*}}: ok
// CMP-DAG: compare cat0: {{.*}}: ok
// CMP-DAG: compare sl: {{.*}}: ok
// CMP-DAG: compare sl1: {{.*}}: ok
// CMP-DAG: compare xr: {{.*}}: ok
// CMP-DAG: compare er: {{.*}}: ok
// CMP-DAG: compare mm: {{.*}}: ok
// CMP-DAG: compare live: {{.*}}: ok
// CMP-NOT: FAIL
// PROBE: compare pr: {{.*}}: ok

ag.forward @shapes(%x: tensor<2x3x4xf32> {ag.name = "x"}, %y: tensor<2x3x5xf32> {ag.name = "y"},
                   %z: tensor<2x3x1xf32> {ag.name = "z"})
    -> (tensor<4x6xf32> {ag.name = "t2"}, tensor<4x2x3xf32> {ag.name = "t3"},
        tensor<2x3x10xf32> {ag.name = "cat"}, tensor<4x3x4xf32> {ag.name = "cat0"},
        tensor<2x3x6xf32> {ag.name = "sl"}, tensor<2x2x4xf32> {ag.name = "sl1"},
        tensor<6x4xf32> {ag.name = "xr"}, tensor<24xf32> {ag.name = "er"},
        tensor<6x6xf32> {ag.name = "mm"}, tensor<24xf32> {ag.name = "live"}) {
  %x2 = ag.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %t2 = ag.transpose %x2 permutation = [1, 0] : tensor<6x4xf32> -> tensor<4x6xf32>
  %t3 = ag.transpose %x permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %cat = ag.concat %x, %y, %z axis = -1 : (tensor<2x3x4xf32>, tensor<2x3x5xf32>, tensor<2x3x1xf32>) -> tensor<2x3x10xf32>
  %cat0 = ag.concat %x, %x axis = 0 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<4x3x4xf32>
  %sl = ag.slice %cat axis = -1 start = 3 end = 9 : tensor<2x3x10xf32> -> tensor<2x3x6xf32>
  %sl1 = ag.slice %x axis = 1 start = 1 end = 3 : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
  // A reshape of an input as an output: copied.
  %xr = ag.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // A reshape of a compute result as an output: written in place.
  %e = ag.exp %x : tensor<2x3x4xf32>
  %er = ag.reshape %e : tensor<2x3x4xf32> -> tensor<24xf32>
  // A reshape feeding a matmul.
  %sr = ag.reshape %sl : tensor<2x3x6xf32> -> tensor<6x6xf32>
  %mm = ag.matmul %sr, %sr : (tensor<6x6xf32>, tensor<6x6xf32>) -> tensor<6x6xf32>
  // %n's range stays live through %m (allocated after the reshape) until
  // the add reads it; the probe reads a reshape of %m.
  %n = ag.neg %x : tensor<2x3x4xf32>
  %nr = ag.reshape %n : tensor<2x3x4xf32> -> tensor<24xf32>
  %m = ag.sqrt %e : tensor<2x3x4xf32>
  %mr = ag.reshape %m : tensor<2x3x4xf32> -> tensor<24xf32>
  %pr = ag.probe "pr" %mr : tensor<24xf32>
  %live = ag.add %nr, %pr : (tensor<24xf32>, tensor<24xf32>) -> tensor<24xf32>
  ag.return %t2, %t3, %cat, %cat0, %sl, %sl1, %xr, %er, %mm, %live
      : tensor<4x6xf32>, tensor<4x2x3xf32>, tensor<2x3x10xf32>, tensor<4x3x4xf32>,
        tensor<2x3x6xf32>, tensor<2x2x4xf32>, tensor<6x4xf32>, tensor<24xf32>,
        tensor<6x6xf32>, tensor<24xf32>
}

// The probed value as an output named like the probe.
ag.forward @probe_pr(%x: tensor<2x3x4xf32> {ag.name = "x"}) -> (tensor<24xf32> {ag.name = "pr"}) {
  %e = ag.exp %x : tensor<2x3x4xf32>
  %m = ag.sqrt %e : tensor<2x3x4xf32>
  %mr = ag.reshape %m : tensor<2x3x4xf32> -> tensor<24xf32>
  ag.return %mr : tensor<24xf32>
}
