// RUN: not capture-opt %s -ag-pack-io -ag-plan-buffers=alignment=8 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: capture-opt %s -ag-pack-io=alignment=64 -ag-plan-buffers=alignment=64 -ag-lower-to-gpu="workgroup-size=128" -canonicalize | FileCheck %s

// RUN: not capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=target=GPU 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=target=lavapip 2>&1 | FileCheck %s --check-prefix=TARGET2
// RUN: not capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=target=cuda 2>&1 | FileCheck %s --check-prefix=TARGET3
// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=target=gpu | FileCheck %s --check-prefix=GPU
// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: not capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=workgroup-size=0 2>&1 | FileCheck %s --check-prefix=WG0
// RUN: not capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=workgroup-size=1025 2>&1 | FileCheck %s --check-prefix=WG1025
// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu=workgroup-size=1024 | FileCheck %s --check-prefix=WG1024

// BAD: error: ag-plan-buffers: alignment must be a power of two >= 16, got 8
// TARGET: error: ag-lower-to-gpu: unknown target 'GPU': expected 'lavapipe', 'gpu' or 'cpu' (did you mean 'gpu'?)
// TARGET2: error: ag-lower-to-gpu: unknown target 'lavapip': expected 'lavapipe', 'gpu' or 'cpu' (did you mean 'lavapipe'?)
// TARGET3: error: ag-lower-to-gpu: unknown target 'cuda': expected 'lavapipe', 'gpu' or 'cpu'{{$}}
// Vulkan devices allow at most 1024 invocations per workgroup.
// WG0: error: ag-lower-to-gpu: workgroup-size must be in [1, 1024], got 0
// WG1025: error: ag-lower-to-gpu: workgroup-size must be in [1, 1024], got 1025
// WG1024: #spirv.entry_point_abi<workgroup_size = [1024, 1, 1]>
// The gpu preset keeps storage-buffer reads.
// GPU: ag.target = #ag.target<read_path = ssbo, subgroup_size = 32, max_texel_elements = 65536, max_loop_iterations = 0>
// The host runs a workgroup's invocations one after another: subgroups of
// one, storage-buffer reads, no loop limit.
// CPU: ag.target = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>

// CHECK: ag.buffer_plan = #ag.buffer_plan<alignment = 64,
// CHECK-DAG: ag.weight @w : tensor<3xf32> {ag.place = #ag.place<weights, 0>}
// CHECK-DAG: ag.weight @v : tensor<3xf32> {ag.place = #ag.place<weights, 64>}
// CHECK-LABEL: func.func @f
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: gpu.launch_func {{.*}} threads in (%[[C128]],
// CHECK: gpu.func {{.*}} #spirv.entry_point_abi<workgroup_size = [128, 1, 1]>
ag.weight @w : tensor<3xf32>
ag.weight @v : tensor<3xf32>
ag.forward @f() -> (tensor<3xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<3xf32>
  %v = ag.read_weight @v : tensor<3xf32>
  %0 = ag.add %w, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ag.return %0 : tensor<3xf32>
}
