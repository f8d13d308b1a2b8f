// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --fuse=false --dump-spirv %t/spv
// RUN: ls %t/spv | FileCheck %s --check-prefix=KERNELS
// RUN: for f in %t/spv/*.spv; do spirv-val --target-env vulkan1.1 $f || exit 1; done
// RUN: capture-opt %s -ag-pipeline | FileCheck %s --check-prefix=SPIRV

// The kernels only training steps use (the backward helpers and the AdamW
// update) pass spirv-val for Vulkan 1.1.

// KERNELS-DAG: {{^}}compare_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}one_hot_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}scatter_add_rows_{{[0-9]+}}.spv
// KERNELS-DAG: {{^}}adamw_{{[0-9]+}}.spv

// The update is guarded by the norm's exponent bits (0x7f800000: all ones
// means Inf or NaN), which no float optimization of a driver can fold away,
// and the whole update sits inside that branch.
// SPIRV-LABEL: spirv.module @__spv__adamw_
// SPIRV: %[[MASK:.*]] = spirv.Constant 2139095040 : i32
// SPIRV: %[[BITS:.*]] = spirv.Bitcast %{{.*}} : f32 to i32
// SPIRV: %[[EXP:.*]] = spirv.BitwiseAnd %[[BITS]], %[[MASK]] : i32
// SPIRV: %[[FINITE:.*]] = spirv.INotEqual %[[EXP]], %[[MASK]] : i32
// SPIRV: spirv.BranchConditional %[[FINITE]]
// SPIRV: spirv.GL.Sqrt
// SPIRV: spirv.Store
// SPIRV: spirv.Store
// SPIRV: spirv.Store

ag.weight @emb trainable : tensor<5x3xf32> = dense<0.5>
ag.weight @w trainable : tensor<3x4xf32> = dense<0.25>
ag.train_step @train(%ids: tensor<2xi32> {ag.name = "ids"}, %labels: tensor<2xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>, max_grad_norm = 0.5 : f32} {
  %e = ag.read_weight @emb : tensor<5x3xf32>
  %w = ag.read_weight @w : tensor<3x4xf32>
  %x = ag.get_rows %e, %ids : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %h = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %r = ag.relu %h : tensor<2x4xf32>
  %l = ag.cross_entropy %r, %labels : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}
