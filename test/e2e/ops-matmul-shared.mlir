// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=SHARED
// RUN: capture-run %t/m.capmod --info --json | FileCheck %s --check-prefix=INFO
// RUN: capture-aot %s -o %t/m.capmod --print-ir | FileCheck %s --check-prefix=GROUPS
// RUN: capture-interp %s --make-inputs %t/in --seed 23
// RUN: capture-run %t/m.capmod --input a=%t/in/a.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --input wr=%t/in/wr.npy --input a2=%t/in/a2.npy --input b2=%t/in/b2.npy --input at=%t/in/at.npy --input bt=%t/in/bt.npy --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --input p=%t/in/p.npy --input q=%t/in/q.npy --input u=%t/in/u.npy --input v=%t/in/v.npy --input g=%t/in/g.npy --input h=%t/in/h.npy --input x4=%t/in/x4.npy --input d4=%t/in/d4.npy --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s --input a=%t/in/a.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --input wr=%t/in/wr.npy --input a2=%t/in/a2.npy --input b2=%t/in/b2.npy --input at=%t/in/at.npy --input bt=%t/in/bt.npy --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --input p=%t/in/p.npy --input q=%t/in/q.npy --input u=%t/in/u.npy --input v=%t/in/v.npy --input g=%t/in/g.npy --input h=%t/in/h.npy --input x4=%t/in/x4.npy --input d4=%t/in/d4.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s
// RUN: capture-aot %s -o %t/private.capmod --tile-shuffles=false --print-module | FileCheck %s --check-prefix=PRIVATE
// RUN: capture-run %t/private.capmod --input a=%t/in/a.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --input wr=%t/in/wr.npy --input a2=%t/in/a2.npy --input b2=%t/in/b2.npy --input at=%t/in/at.npy --input bt=%t/in/bt.npy --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --input p=%t/in/p.npy --input q=%t/in/q.npy --input u=%t/in/u.npy --input v=%t/in/v.npy --input g=%t/in/g.npy --input h=%t/in/h.npy --input x4=%t/in/x4.npy --input d4=%t/in/d4.npy --output-dir %t/private > /dev/null
// RUN: capture-interp %s --input a=%t/in/a.npy --input w=%t/in/w.npy --input r=%t/in/r.npy --input wr=%t/in/wr.npy --input a2=%t/in/a2.npy --input b2=%t/in/b2.npy --input at=%t/in/at.npy --input bt=%t/in/bt.npy --input x1=%t/in/x1.npy --input d1=%t/in/d1.npy --input x2=%t/in/x2.npy --input d2=%t/in/d2.npy --input x3=%t/in/x3.npy --input d3=%t/in/d3.npy --input p=%t/in/p.npy --input q=%t/in/q.npy --input u=%t/in/u.npy --input v=%t/in/v.npy --input g=%t/in/g.npy --input h=%t/in/h.npy --input x4=%t/in/x4.npy --input d4=%t/in/d4.npy --compare %t/private --tolerance 1e-5 | FileCheck %s
// RUN: for f in awt rowt ab atb w1 bias1 w2 bias2 w3 bias3 pq uv ght w4 bias4; do cmp %t/gpu/$f.npy %t/private/$f.npy || exit 1; done

// Matmul tiles whose 8 lanes share loads (subgroup shuffles, the lavapipe
// target) against the interpreter, and against the same module with every
// lane loading its own bit for bit (`cmp`: the same products summed in the
// same order). Each group of 8 lanes owns 2x4 or 4x2 tiles and shares both
// operands where the tiles allow, else a column of 8 tiles sharing B or a
// row of 8 sharing A. Shapes: 2x4 with a row tail (M = 13) and a column
// tail (N = 60); A·B with B stored [K, N]; Aᵀ·B with A stored [K, M] and a
// K remainder (K = 7); weight gradients with their bias sums (the groups
// walk down the columns of tiles), 4x2 with vec4 rows and K = 1000, a
// column of 8 with scalar rows (M = 57), 4x2 with B stored [N, K]
// (transpose_b), 2x4 with K = 65; a row of 8 sharing A with scalar B
// columns (N = 61); a column of 8 sharing B with scalar A rows (K = 10);
// 4x2 with row and column tails (29x14). No workgroup region takes the
// sums (GROUPS names every kernel). One row (tiles of 4 rows: nothing to
// share) stays private.

// GROUPS: gpu.func @matmul_0({{.*}}ag.tile_group = array<i64: 2, 4>
// GROUPS-NOT: gpu.func @matmul_1({{.*}}ag.tile_group
// GROUPS: gpu.func @matmul_2({{.*}}ag.tile_group = array<i64: 2, 4>
// GROUPS: gpu.func @matmul_3({{.*}}ag.tile_group = array<i64: 2, 4>
// GROUPS: gpu.func @matmul_sum_4({{.*}}ag.tile_group = array<i64: 4, 2>
// GROUPS: gpu.func @matmul_sum_5({{.*}}ag.tile_group = array<i64: 8, 1>
// GROUPS: gpu.func @matmul_sum_6({{.*}}ag.tile_group = array<i64: 4, 2>
// GROUPS: gpu.func @matmul_sum_7({{.*}}ag.tile_group = array<i64: 2, 4>
// GROUPS: gpu.func @matmul_8({{.*}}ag.tile_group = array<i64: 1, 8>
// GROUPS: gpu.func @matmul_9({{.*}}ag.tile_group = array<i64: 8, 1>
// GROUPS: gpu.func @matmul_10({{.*}}ag.tile_group = array<i64: 4, 2>

// SHARED-COUNT-10: subgroups of 8n lanes
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
// CHECK-DAG: compare pq: {{.*}}: ok
// CHECK-DAG: compare uv: {{.*}}: ok
// CHECK-DAG: compare ght: {{.*}}: ok
// CHECK-DAG: compare w4: {{.*}}: ok
// CHECK-DAG: compare bias4: {{.*}}: ok
// CHECK-NOT: FAIL

ag.forward @f(%a: tensor<13x16xf32> {ag.name = "a"}, %w: tensor<60x16xf32> {ag.name = "w"},
              %r: tensor<1x12xf32> {ag.name = "r"}, %wr: tensor<64x12xf32> {ag.name = "wr"},
              %a2: tensor<9x20xf32> {ag.name = "a2"}, %b2: tensor<20x64xf32> {ag.name = "b2"},
              %at: tensor<7x12xf32> {ag.name = "at"}, %bt: tensor<7x60xf32> {ag.name = "bt"},
              %x1: tensor<1000x60xf32> {ag.name = "x1"}, %d1: tensor<1000x12xf32> {ag.name = "d1"},
              %x2: tensor<9x57xf32> {ag.name = "x2"}, %d2: tensor<9x12xf32> {ag.name = "d2"},
              %x3: tensor<20x64xf32> {ag.name = "x3"}, %d3: tensor<16x20xf32> {ag.name = "d3"},
              %x4: tensor<65x16xf32> {ag.name = "x4"}, %d4: tensor<65x32xf32> {ag.name = "d4"},
              %p: tensor<8x16xf32> {ag.name = "p"}, %q: tensor<16x61xf32> {ag.name = "q"},
              %u: tensor<64x10xf32> {ag.name = "u"}, %v: tensor<10x12xf32> {ag.name = "v"},
              %g: tensor<29x16xf32> {ag.name = "g"}, %h: tensor<14x16xf32> {ag.name = "h"})
    -> (tensor<13x60xf32> {ag.name = "awt"}, tensor<1x64xf32> {ag.name = "rowt"},
        tensor<9x64xf32> {ag.name = "ab"}, tensor<12x60xf32> {ag.name = "atb"},
        tensor<60x12xf32> {ag.name = "w1"}, tensor<60xf32> {ag.name = "bias1"},
        tensor<57x12xf32> {ag.name = "w2"}, tensor<57xf32> {ag.name = "bias2"},
        tensor<64x16xf32> {ag.name = "w3"}, tensor<64xf32> {ag.name = "bias3"},
        tensor<16x32xf32> {ag.name = "w4"}, tensor<16xf32> {ag.name = "bias4"},
        tensor<8x61xf32> {ag.name = "pq"}, tensor<64x12xf32> {ag.name = "uv"},
        tensor<29x14xf32> {ag.name = "ght"}) {
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
  %w4 = ag.matmul %x4, %d4 {transpose_a} : (tensor<65x16xf32>, tensor<65x32xf32>) -> tensor<16x32xf32>
  %s4 = ag.sum %x4 axis = 0 : tensor<65x16xf32> -> tensor<16xf32>
  %pq = ag.matmul %p, %q : (tensor<8x16xf32>, tensor<16x61xf32>) -> tensor<8x61xf32>
  %uv = ag.matmul %u, %v : (tensor<64x10xf32>, tensor<10x12xf32>) -> tensor<64x12xf32>
  %ght = ag.matmul %g, %h {transpose_b} : (tensor<29x16xf32>, tensor<14x16xf32>) -> tensor<29x14xf32>
  ag.return %0, %1, %2, %3, %w1, %s1, %w2, %s2, %w3, %s3, %w4, %s4, %pq, %uv, %ght : tensor<13x60xf32>, tensor<1x64xf32>, tensor<9x64xf32>, tensor<12x60xf32>, tensor<60x12xf32>, tensor<60xf32>, tensor<57x12xf32>, tensor<57xf32>, tensor<64x16xf32>, tensor<64xf32>, tensor<16x32xf32>, tensor<16xf32>, tensor<8x61xf32>, tensor<64x12xf32>, tensor<29x14xf32>
}
