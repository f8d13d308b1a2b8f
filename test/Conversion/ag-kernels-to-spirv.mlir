// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -canonicalize -ag-kernels-to-spirv | FileCheck %s

// Each gpu.module gets a spirv.module beside it (the gpu.module stays for
// gpu.launch_func); memrefs become StorageBuffer bindings in set 0, the
// math ops GLSL extended instructions.

// CHECK: spirv.module @__spv__[[K:exp_[0-9]+]] Logical GLSL450
// CHECK: spirv.func @[[K]](%{{.*}}: !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}, %{{.*}}: !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>})
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>
// CHECK: spirv.GL.Exp
// CHECK: gpu.module @[[K]]
// CHECK: spirv.module @__spv__[[L:log_[0-9]+]]
// CHECK: spirv.GL.Log
// CHECK: spirv.module @__spv__[[S:sqrt_[0-9]+]]
// CHECK: spirv.GL.Sqrt
// CHECK: spirv.module @__spv__sigmoid
// CHECK: spirv.GL.Exp
// CHECK: spirv.FDiv
// CHECK: spirv.module @__spv__floor
// CHECK: spirv.GL.Floor
// CHECK: spirv.module @__spv__ceil
// CHECK: spirv.GL.Ceil
// erf has no GLSL instruction: the kernel's approximation (abs, a clamp to
// 4 that keeps NaN, exp, the branch select, the sign copied by bit ops).
// CHECK: spirv.module @__spv__erf
// CHECK-NOT: spirv.module
// CHECK: spirv.GL.FAbs
// CHECK: spirv.GL.FMin
// CHECK: spirv.GL.Exp
// CHECK: spirv.FOrdLessThan
// CHECK: spirv.Select
// CHECK: spirv.BitwiseOr
ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> (tensor<2x3xf32> {ag.name = "y"}) {
  %0 = ag.exp %x : tensor<2x3xf32>
  %1 = ag.log %0 : tensor<2x3xf32>
  %2 = ag.sqrt %1 : tensor<2x3xf32>
  %3 = ag.sigmoid %2 : tensor<2x3xf32>
  ag.return %3 : tensor<2x3xf32>
}

ag.forward @g(%x: tensor<2x3xf32> {ag.name = "x"})
    -> (tensor<2x3xf32> {ag.name = "fl"}, tensor<2x3xf32> {ag.name = "ce"},
        tensor<2x3xf32> {ag.name = "er"}) {
  %0 = ag.floor %x : tensor<2x3xf32>
  %1 = ag.ceil %x : tensor<2x3xf32>
  %2 = ag.erf %x : tensor<2x3xf32>
  ag.return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
