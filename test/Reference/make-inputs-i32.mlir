// --make-inputs writes i32 inputs as uniform integers in [0, K), where K
// keeps every value valid for the ops the input feeds (see --help).
// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-interp %s --entry f --make-inputs %t/a --seed 3 | FileCheck %s --check-prefix=MAKE
// RUN: capture-interp %s --entry f --make-inputs %t/b --seed 3
// RUN: cmp %t/a/ids.npy %t/b/ids.npy
// MAKE: wrote input x [64, 5] to {{.*}}x.npy
// MAKE-NEXT: wrote input labels [64] (i32 in [0, 5)) to {{.*}}labels.npy
// MAKE-NEXT: wrote input ids [64] (i32 in [0, 3)) to {{.*}}ids.npy
// MAKE-NEXT: wrote input other [4] (i32 in [0, 2147483647)) to {{.*}}other.npy

// The files are valid inputs: every label and index is in range (an
// out-of-range one would fail the evaluation), and they are read as i32.
// The values pin the generator (splitmix64 seeded with 3 ^ FNV-1a(name),
// the top 32 bits of each draw scaled to [0, K)).
// RUN: capture-interp %s --entry f --input x=%t/a/x.npy --input labels=%t/a/labels.npy --input ids=%t/a/ids.npy --input other=%t/a/other.npy | FileCheck %s
// CHECK: output labels_out [64]: 1 2 1 4 0 0 1 3 ...{{$}}
// CHECK-NEXT: output ids_out [64]: 0 1 2 0 0 0 1 1 ...{{$}}
// CHECK-NEXT: output other_out [4]: 1673031884 1520461420 493837669 1638776541{{$}}

// No valid index into an empty table: refused, naming the op.
// RUN: not capture-interp %s --entry empty --make-inputs %t/c 2>&1 | FileCheck %s --check-prefix=EMPTY

// The rule is documented in --help.
// RUN: capture-interp --help | FileCheck %s --check-prefix=HELP
// HELP: --make-inputs and i32 inputs (labels, indices):
// HELP: ag.cross_entropy labels: K = C, the logits' dimension 1 (classes);
// HELP: ag.get_rows indices:     K = V, the table's dimension 0 (rows);
// HELP: both, or several such ops: the smallest of these Ks;
// HELP: neither (e.g. the input is only returned): K = 2^31 - 1

ag.weight @table : tensor<7x2xf32> = #ag.init<zeros>
ag.weight @none : tensor<0x2xf32> = #ag.init<zeros>

// ids feeds a cross-entropy with 3 classes and a table with 7 rows: K = 3.
ag.forward @f(%x: tensor<64x5xf32> {ag.name = "x"}, %labels: tensor<64xi32> {ag.name = "labels"},
              %ids: tensor<64xi32> {ag.name = "ids"}, %other: tensor<4xi32> {ag.name = "other"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<f32> {ag.name = "loss3"}, tensor<64x2xf32> {ag.name = "rows"},
        tensor<64xi32> {ag.name = "labels_out"}, tensor<64xi32> {ag.name = "ids_out"}, tensor<4xi32> {ag.name = "other_out"}) {
  %loss = ag.cross_entropy %x, %labels : (tensor<64x5xf32>, tensor<64xi32>) -> tensor<f32>
  %x3 = ag.slice %x axis = 1 start = 0 end = 3 : tensor<64x5xf32> -> tensor<64x3xf32>
  %loss3 = ag.cross_entropy %x3, %ids : (tensor<64x3xf32>, tensor<64xi32>) -> tensor<f32>
  %t = ag.read_weight @table : tensor<7x2xf32>
  %rows = ag.get_rows %t, %ids : (tensor<7x2xf32>, tensor<64xi32>) -> tensor<64x2xf32>
  ag.return %loss, %loss3, %rows, %labels, %ids, %other : tensor<f32>, tensor<f32>, tensor<64x2xf32>, tensor<64xi32>, tensor<64xi32>, tensor<4xi32>
}

ag.forward @empty(%ids: tensor<2xi32> {ag.name = "ids"}) -> (tensor<2x2xf32> {ag.name = "rows"}) {
  %t = ag.read_weight @none : tensor<0x2xf32>
  // EMPTY: capture-interp: error: input 'ids' has no valid value: it indexes the rows (table dimension 0) of the 'ag.get_rows' at loc("{{.*}}make-inputs-i32.mlir":[[@LINE+1]]:11), which is empty
  %rows = ag.get_rows %t, %ids : (tensor<0x2xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  ag.return %rows : tensor<2x2xf32>
}
