// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=SHARED
// RUN: capture-run %t/m.capmod --info --json | FileCheck %s --check-prefix=INFO
// RUN: capture-interp %s --make-inputs %t/in --seed 23
// RUN: capture-run %t/m.capmod --input a=%t/in/a.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --input wr=%t/in/wr.npy --input a2=%t/in/a2.npy --input b2=%t/in/b2.npy --input at=%t/in/at.npy --input bt=%t/in/bt.npy --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s --input a=%t/in/a.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --input wr=%t/in/wr.npy --input a2=%t/in/a2.npy --input b2=%t/in/b2.npy --input at=%t/in/at.npy --input bt=%t/in/bt.npy --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s
// RUN: capture-aot %s -o %t/private.capmod --tile-shuffles=false --print-module | FileCheck %s --check-prefix=PRIVATE
// RUN: capture-run %t/private.capmod --input a=%t/in/a.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --input wr=%t/in/wr.npy --input a2=%t/in/a2.npy --input b2=%t/in/b2.npy --input at=%t/in/at.npy --input bt=%t/in/bt.npy --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --output-dir %t/private > /dev/null
// RUN: capture-interp %s --input a=%t/in/a.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --input wr=%t/in/wr.npy --input a2=%t/in/a2.npy --input b2=%t/in/b2.npy --input at=%t/in/at.npy --input bt=%t/in/bt.npy --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --compare %t/private --tolerance 1e-5 | FileCheck %s
// RUN: for f in awt rowt ab atb w1 bias1 w2 bias2 w3 bias3; do cmp %t/gpu/$f.npy %t/private/$f.npy || exit 1; done

// Matmul tiles whose 8 lanes share one operand's loads (subgroup shuffles,
// the lavapipe target) against the interpreter, and against the same
// module with every lane loading its own bit for bit (`cmp`: the same
// products summed in the same order). Shapes that share: a row of 8 tiles (N in
// 57..64) with a row tail (M = 13) and a column tail (N = 60); A·B with B
// stored [K, N]; Aᵀ·B with A stored [K, M] and a K remainder
// (K = 7); weight gradients with their bias sums (the lanes walk down a
// column of 8 tiles and share B), with vec4 and scalar rows (M = 60, 57),
// K = 1000, and B stored [N, K] (transpose_b). Each X has more elements than a quarter of the largest
// matmul result, so that no workgroup region takes its sum. One row
// (tiles of 4 rows: nothing to share) stays private.

// SHARED-COUNT-6: subgroups of 8n lanes
// SHARED-NOT: subgroups of
// PRIVATE-NOT: subgroups of
// INFO: "name":"matmul_0",{{[^}]*}}"subgroup_multiple":8}
// INFO: "name":"matmul_1",{{[^}]*}}"subgroup_multiple":0}

// CHECK-DAG: compare awt: {{.*}}: ok
// CHECK-DAG: compare rowt: {{.*}}: ok
// CHECK-DAG: compare ab: {{.*}}: ok
// CHECK-DAG: compare atb: {{.*}}: ok
// CHECK-DAG: compare w1: {{.*}}: ok
// CHECK-DAG: compare bias1: {{.*}}: ok
// CHECK-DAG: compare w2: {{.*}}: ok
// CHECK-DAG: compare bias2: {{.*}}: ok
// CHECK-DAG: compare w3: {{.*}}: ok
// CHECK-DAG: compare bias3: {{.*}}: ok
// CHECK-NOT: FAIL

ag.forward @f(%a: tensor<13x16xf32> {ag.name = "a"}, %w: tensor<60x16xf32> {ag.name = "w"},
              %r: tensor<1x12xf32> {ag.name = "r"}, %wr: tensor<64x12xf32> {ag.name = "wr"},
              %a2: tensor<9x20xf32> {ag.name = "a2"}, %b2: tensor<20x64xf32> {ag.name = "b2"},
              %at: tensor<7x12xf32> {ag.name = "at"}, %bt: tensor<7x60xf32> {ag.name = "bt"},
              %x1: tensor<1000x60xf32> {ag.name = "x1"}, %d1: tensor<1000x12xf32> {ag.name = "d1"},
              %x2: tensor<9x57xf32> {ag.name = "x2"}, %d2: tensor<9x12xf32> {ag.name = "d2"},
              %x3: tensor<20x64xf32> {ag.name = "x3"}, %d3: tensor<16x20xf32> {ag.name = "d3"})
    -> (tensor<13x60xf32> {ag.name = "awt"}, tensor<1x64xf32> {ag.name = "rowt"},
        tensor<9x64xf32> {ag.name = "ab"}, tensor<12x60xf32> {ag.name = "atb"},
        tensor<60x12xf32> {ag.name = "w1"}, tensor<60xf32> {ag.name = "bias1"},
        tensor<57x12xf32> {ag.name = "w2"}, tensor<57xf32> {ag.name = "bias2"},
        tensor<64x16xf32> {ag.name = "w3"}, tensor<64xf32> {ag.name = "bias3"}) {
  %0 = ag.matmul %a, %w {transpose_b} : (tensor<13x16xf32>, tensor<60x16xf32>) -> tensor<13x60xf32>
  %1 = ag.matmul %r, %wr {transpose_b} : (tensor<1x12xf32>, tensor<64x12xf32>) -> tensor<1x64xf32>
  %2 = ag.matmul %a2, %b2 : (tensor<9x20xf32>, tensor<20x64xf32>) -> tensor<9x64xf32>
  %3 = ag.matmul %at, %bt {transpose_a} : (tensor<7x12xf32>, tensor<7x60xf32>) -> tensor<12x60xf32>
  %w1 = ag.matmul %x1, %d1 {transpose_a} : (tensor<1000x60xf32>, tensor<1000x12xf32>) -> tensor<60x12xf32>
  %s1 = ag.sum %x1 axis = 0 : tensor<1000x60xf32> -> tensor<60xf32>
  %w2 = ag.matmul %x2, %d2 {transpose_a} : (tensor<9x57xf32>, tensor<9x12xf32>) -> tensor<57x12xf32>
  %s2 = ag.sum %x2 axis = 0 : tensor<9x57xf32> -> tensor<57xf32>
  %w3 = ag.matmul %x3, %d3 {transpose_a, transpose_b} : (tensor<20x64xf32>, tensor<16x20xf32>) -> tensor<64x16xf32>
  %s3 = ag.sum %x3 axis = 0 : tensor<20x64xf32> -> tensor<64xf32>
  ag.return %0, %1, %2, %3, %w1, %s1, %w2, %s2, %w3, %s3 : tensor<13x60xf32>, tensor<1x64xf32>, tensor<9x64xf32>, tensor<12x60xf32>, tensor<60x12xf32>, tensor<60xf32>, tensor<57x12xf32>, tensor<57xf32>, tensor<64x16xf32>, tensor<64xf32>
}
