// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -canonicalize -cse | FileCheck %s
// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=tile-shuffles=false | FileCheck %s --check-prefix=OFF
// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=target=gpu | FileCheck %s --check-prefix=OFF
// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=workgroup-size=60 | FileCheck %s --check-prefix=OFF
// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --dump-spirv %t/spv
// RUN: for f in %t/spv/*.spv; do spirv-val --target-env vulkan1.1 $f || exit 1; done
// RUN: spirv-dis %t/spv/matmul_0.spv | FileCheck %s --check-prefix=SPIRV

// On the lavapipe target the 8 lanes of a SIMD group whose tiles share A's
// rows (a row of 8 tiles: N = 60 here) load one vector of A's K block each
// and pass them with shuffles; the kernel says it needs subgroups of a
// multiple of 8 lanes. A row of 3 tiles (N = 20) cannot share: its 8
// consecutive work items span several rows of tiles. Neither shares with
// tile-shuffles=false, on the gpu target (storage-buffer reads) or with a
// workgroup that 8-lane groups do not fill.

// CHECK-LABEL: gpu.func @matmul_0
// CHECK-SAME: ag.subgroup_multiple = 8 : i64
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
// CHECK: scf.yield
// CHECK-LABEL: gpu.func @matmul_1
// CHECK-NOT: ag.subgroup_multiple
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return

// OFF-NOT: gpu.shuffle
// OFF-NOT: ag.subgroup_multiple

// SPIRV: OpCapability GroupNonUniformShuffle
// SPIRV: OpDecorate %{{.*}} BuiltIn SubgroupLocalInvocationId
// SPIRV-COUNT-8: OpGroupNonUniformShuffle %v4float %uint_3

ag.forward @f(%a: tensor<13x16xf32> {ag.name = "a"}, %w: tensor<60x16xf32> {ag.name = "w"},
              %b: tensor<16x20xf32> {ag.name = "b"})
    -> (tensor<13x60xf32> {ag.name = "y"}, tensor<13x20xf32> {ag.name = "z"}) {
  %0 = ag.matmul %a, %w {transpose_b} : (tensor<13x16xf32>, tensor<60x16xf32>) -> tensor<13x60xf32>
  %1 = ag.matmul %a, %b : (tensor<13x16xf32>, tensor<16x20xf32>) -> tensor<13x20xf32>
  ag.return %0, %1 : tensor<13x60xf32>, tensor<13x20xf32>
}
