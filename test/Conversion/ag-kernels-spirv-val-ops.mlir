// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --fuse=false --dump-spirv %t/spv
// RUN: ls %t/spv | FileCheck %s --check-prefix=KERNELS
// RUN: for f in %t/spv/*.spv; do spirv-val --target-env vulkan1.1 $f || exit 1; done
// RUN: capture-opt %s -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -canonicalize -ag-kernels-to-spirv | FileCheck %s --check-prefix=SPIRV

// Every kernel of the shape, NaN-propagating, softmax, loss and i32-index
// ops passes spirv-val for Vulkan 1.1; ag.reshape has none.

// KERNELS-DAG: {{^}}minimum_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}maximum_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}max_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}clamp_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}broadcast_to_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}transpose_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}concat_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}slice_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}softmax_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}log_softmax_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}cross_entropy_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}mse_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}get_rows_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}copy_{{[0-9]+}}.spv
// KERNELS-NOT: reshape

// GL FMin/FMax are undefined for a NaN operand: the arith lowering adds
// IsNan selects, which is what makes minimum/maximum/max/clamp propagate
// NaN on any driver.
// SPIRV-LABEL: spirv.module @__spv__minimum_
// SPIRV: %[[M:.*]] = spirv.GL.FMin %[[A:.*]], %[[B:.*]] : f32
// SPIRV-DAG: %[[NA:.*]] = spirv.IsNan %[[A]]
// SPIRV-DAG: %[[NB:.*]] = spirv.IsNan %[[B]]
// SPIRV: %[[S:.*]] = spirv.Select %[[NA]], %[[A]], %[[M]]
// SPIRV: spirv.Select %[[NB]], %[[B]], %[[S]]
// SPIRV-LABEL: spirv.module @__spv__maximum_
// SPIRV: spirv.GL.FMax
// SPIRV: spirv.IsNan
// Indices are loaded as i32 and clamped with signed min/max.
// SPIRV-LABEL: spirv.module @__spv__cross_entropy_
// SPIRV: spirv.GL.SMax
// SPIRV: spirv.GL.SMin
// SPIRV-LABEL: spirv.module @__spv__get_rows_
// SPIRV: spirv.func @get_rows_{{[0-9]+}}(%{{.*}}: !spirv.ptr<!spirv.struct<(!spirv.array<15 x f32, stride=4> [0])>, StorageBuffer> {{.*}}, %{{.*}}: !spirv.ptr<!spirv.struct<(!spirv.array<2 x i32, stride=4> [0])>, StorageBuffer>
// SPIRV: spirv.GL.SMax
// SPIRV: spirv.GL.SMin

ag.weight @table : tensor<5x3xf32> = dense<0.25>
ag.forward @all(%x: tensor<2x4xf32> {ag.name = "x"}, %y: tensor<4xf32> {ag.name = "y"},
                %lab: tensor<2xi32> {ag.name = "lab"})
    -> (tensor<2x4xf32> {ag.name = "mn"}, tensor<2x4xf32> {ag.name = "mx"}, tensor<2xf32> {ag.name = "rmax"},
        tensor<2x4xf32> {ag.name = "cl"}, tensor<3x2x4xf32> {ag.name = "bc"}, tensor<4x2xf32> {ag.name = "tr"},
        tensor<2x8xf32> {ag.name = "cat"}, tensor<2x2xf32> {ag.name = "sl"}, tensor<2x4xf32> {ag.name = "sm"},
        tensor<2x4xf32> {ag.name = "lsm"}, tensor<f32> {ag.name = "ce"}, tensor<f32> {ag.name = "mse"},
        tensor<2x3xf32> {ag.name = "rows"}, tensor<8xf32> {ag.name = "flat"}) {
  %t = ag.read_weight @table : tensor<5x3xf32>
  %0 = ag.minimum %x, %y : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = ag.maximum %y, %x : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = ag.max %1 axis = -1 : tensor<2x4xf32> -> tensor<2xf32>
  %3 = ag.clamp %x min = -0.5 max = 0.5 : tensor<2x4xf32>
  %4 = ag.broadcast_to %3 : tensor<2x4xf32> -> tensor<3x2x4xf32>
  %5 = ag.transpose %x permutation = [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  %6 = ag.concat %x, %0 axis = 1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  %7 = ag.slice %x axis = -1 start = 1 end = 3 : tensor<2x4xf32> -> tensor<2x2xf32>
  %8 = ag.softmax %x axis = 1 : tensor<2x4xf32>
  %9 = ag.log_softmax %x axis = -1 : tensor<2x4xf32>
  %10 = ag.cross_entropy %x, %lab : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<f32>
  %11 = ag.mse %x, %1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %12 = ag.get_rows %t, %lab : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %13 = ag.reshape %x : tensor<2x4xf32> -> tensor<8xf32>
  ag.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13
      : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2xf32>, tensor<2x4xf32>, tensor<3x2x4xf32>,
        tensor<4x2xf32>, tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<2x4xf32>,
        tensor<f32>, tensor<f32>, tensor<2x3xf32>, tensor<8xf32>
}
