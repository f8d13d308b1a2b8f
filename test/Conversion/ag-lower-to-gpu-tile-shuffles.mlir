// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -canonicalize -cse | FileCheck %s
// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=tile-shuffles=false | FileCheck %s --check-prefix=OFF
// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=target=gpu | FileCheck %s --check-prefix=OFF
// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=workgroup-size=60 | FileCheck %s --check-prefix=OFF
// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --dump-spirv %t/spv
// RUN: for f in %t/spv/*.spv; do spirv-val --target-env vulkan1.1 $f || exit 1; done
// RUN: spirv-dis %t/spv/matmul_0.spv | FileCheck %s --check-prefix=SPIRV

// On the lavapipe target each group of 8 lanes (a SIMD group) owns tiles
// that share loads. Here (13x60: 2 rows of 8 tiles) a group owns 2x4
// tiles: per K block it needs 16 vectors of A (2 tile rows) and 32 of B
// (4 tile columns); each lane loads 2 and 4 of them, and takes its tile's
// 8 vectors of each with shuffles: vector j of A from load j / 4 of lane
// (j % 4) * 2 + its tile row in the group, vector j of B from load j / 2
// of lane (j % 2) * 4 + its tile column. The kernel says it needs
// subgroups of a multiple of 8 lanes, and which tiles a group owns. With
// 3 rows of tiles (M = 20) no 2x4 or 4x2 group fits and a row of 8 tiles
// shares A alone. 2 rows of 3 tiles (N = 20) share nothing: no group of 8
// tiles them exactly. None shares with tile-shuffles=false, on the gpu target
// (storage-buffer reads) or with a workgroup that 8-lane groups do not
// fill.

// CHECK-LABEL: gpu.func @matmul_0
// CHECK-SAME: ag.subgroup_multiple = 8 : i64, ag.tile_group = array<i64: 2, 4>
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: %[[T:.*]] = arith.remui %[[LANE]], %c8
// CHECK: %[[FIRST:.*]] = arith.subi %[[LANE]], %[[T]]
// CHECK: %[[BASE:.*]] = arith.index_cast %[[FIRST]] : index to i32
// CHECK: %[[TR:.*]] = arith.divui %[[T]], %c4
// CHECK: %[[TRI:.*]] = arith.index_cast %[[TR]] : index to i32
// CHECK: %[[A0:.*]] = arith.addi %[[BASE]], %[[TRI]]
// CHECK: %[[L2:.*]] = arith.addi %[[BASE]], %c2_i32
// CHECK: %[[A1:.*]] = arith.addi %[[L2]], %[[TRI]]
// CHECK: %[[L4:.*]] = arith.addi %[[BASE]], %c4_i32
// CHECK: %[[A2:.*]] = arith.addi %[[L4]], %[[TRI]]
// CHECK: %[[L6:.*]] = arith.addi %[[BASE]], %c6_i32
// CHECK: %[[A3:.*]] = arith.addi %[[L6]], %[[TRI]]
// CHECK: %[[TC:.*]] = arith.remui %[[T]], %c4
// CHECK: %[[TCI:.*]] = arith.index_cast %[[TC]] : index to i32
// CHECK: %[[B0:.*]] = arith.addi %[[BASE]], %[[TCI]]
// CHECK: %[[B1:.*]] = arith.addi %[[L4]], %[[TCI]]
// CHECK: scf.for
// CHECK: %[[MA0:.*]] = memref.load %arg0
// CHECK: %[[MA1:.*]] = memref.load %arg0
// CHECK: gpu.shuffle  idx %[[MA0]], %[[A0]], %c8_i32 : vector<4xf32>
// CHECK: gpu.shuffle  idx %[[MA0]], %[[A1]], %c8_i32
// CHECK: gpu.shuffle  idx %[[MA0]], %[[A2]], %c8_i32
// CHECK: gpu.shuffle  idx %[[MA0]], %[[A3]], %c8_i32
// CHECK: gpu.shuffle  idx %[[MA1]], %[[A0]], %c8_i32
// CHECK-COUNT-3: gpu.shuffle  idx %[[MA1]]
// CHECK-NOT: memref.load %arg0
// CHECK: %[[MB0:.*]] = memref.load %arg1
// CHECK: %[[MB1:.*]] = memref.load %arg1
// CHECK: %[[MB2:.*]] = memref.load %arg1
// CHECK: %[[MB3:.*]] = memref.load %arg1
// CHECK: gpu.shuffle  idx %[[MB0]], %[[B0]], %c8_i32 : vector<4xf32>
// CHECK: gpu.shuffle  idx %[[MB0]], %[[B1]], %c8_i32
// CHECK: gpu.shuffle  idx %[[MB1]], %[[B0]], %c8_i32
// CHECK: gpu.shuffle  idx %[[MB1]], %[[B1]], %c8_i32
// CHECK: gpu.shuffle  idx %[[MB2]], %[[B0]], %c8_i32
// CHECK: gpu.shuffle  idx %[[MB2]], %[[B1]], %c8_i32
// CHECK: gpu.shuffle  idx %[[MB3]], %[[B0]], %c8_i32
// CHECK: gpu.shuffle  idx %[[MB3]], %[[B1]], %c8_i32
// CHECK-NOT: memref.load
// CHECK: scf.yield
// CHECK-LABEL: gpu.func @matmul_1
// CHECK-NOT: ag.subgroup_multiple
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @matmul_2
// CHECK-SAME: ag.subgroup_multiple = 8 : i64, ag.tile_group = array<i64: 1, 8>
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: %[[T:.*]] = arith.remui %[[LANE]], %c8
// CHECK: %[[FIRST:.*]] = arith.subi %[[LANE]], %[[T]]
// CHECK: %[[BASE:.*]] = arith.index_cast %[[FIRST]] : index to i32
// CHECK: %[[L7:.*]] = arith.addi %[[BASE]], %c7_i32
// CHECK: scf.for
// CHECK: %[[MINE:.*]] = memref.load %arg0
// CHECK: gpu.shuffle  idx %[[MINE]], %[[BASE]], %c8_i32 : vector<4xf32>
// CHECK-COUNT-6: gpu.shuffle  idx %[[MINE]]
// CHECK: gpu.shuffle  idx %[[MINE]], %[[L7]], %c8_i32 : vector<4xf32>
// CHECK-NOT: memref.load %arg0
// CHECK-NOT: gpu.shuffle
// CHECK: scf.yield

// OFF-NOT: gpu.shuffle
// OFF-NOT: ag.subgroup_multiple

// SPIRV: OpCapability GroupNonUniformShuffle
// SPIRV: OpDecorate %{{.*}} BuiltIn SubgroupLocalInvocationId
// SPIRV-COUNT-16: OpGroupNonUniformShuffle %v4float %uint_3
// SPIRV-NOT: OpGroupNonUniformShuffle

ag.forward @f(%a: tensor<13x16xf32> {ag.name = "a"}, %w: tensor<60x16xf32> {ag.name = "w"},
              %b: tensor<16x20xf32> {ag.name = "b"}, %r: tensor<20x16xf32> {ag.name = "r"})
    -> (tensor<13x60xf32> {ag.name = "y"}, tensor<13x20xf32> {ag.name = "z"},
        tensor<20x60xf32> {ag.name = "x"}) {
  %0 = ag.matmul %a, %w {transpose_b} : (tensor<13x16xf32>, tensor<60x16xf32>) -> tensor<13x60xf32>
  %1 = ag.matmul %a, %b : (tensor<13x16xf32>, tensor<16x20xf32>) -> tensor<13x20xf32>
  %2 = ag.matmul %r, %w {transpose_b} : (tensor<20x16xf32>, tensor<60x16xf32>) -> tensor<20x60xf32>
  ag.return %0, %1, %2 : tensor<13x60xf32>, tensor<13x20xf32>, tensor<20x60xf32>
}
