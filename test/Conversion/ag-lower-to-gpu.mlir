// RUN: capture-opt %s -split-input-file -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -canonicalize -cse | FileCheck %s

// Weights, constants and the entry's scratch become byte globals; every
// compute op becomes a gpu.launch_func whose arguments are ag.bindings,
// typed buffer ranges (operands first, the written result last); outputs are
// written in place in the output buffer; scratch ranges are reused once
// their value is dead, except a probed value's.

ag.weight @w trainable : tensor<4x8xf32>
ag.weight @b : tensor<8xf32> = dense<0.5>
ag.forward @mlp(%x: tensor<2x4xf32> {ag.name = "x"})
    -> (tensor<2x8xf32> {ag.name = "y"}, tensor<2x4xf32> {ag.name = "xin"}) {
  %w = ag.read_weight @w : tensor<4x8xf32>
  %b = ag.read_weight @b : tensor<8xf32>
  %c = ag.constant dense<2.0> : tensor<8xf32>
  %0 = ag.matmul %x, %w : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  %1 = ag.add %0, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %2 = ag.mul %1, %c : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %h = ag.probe "pre" %2 : tensor<2x8xf32>
  %3 = ag.tanh %h : tensor<2x8xf32>
  %4 = ag.relu %3 : tensor<2x8xf32>
  ag.return %4, %x : tensor<2x8xf32>, tensor<2x4xf32>
}

// CHECK: module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 288, optimizer = 0, constants = 32>, ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 134217728, max_loop_iterations = 65535>, gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, ImageBuffer, SampledBuffer, GroupNonUniform, GroupNonUniformArithmetic, GroupNonUniformShuffle], [SPV_KHR_storage_buffer_storage_class]>, api=Vulkan, #spirv.resource_limits<subgroup_size = 8>>}
// CHECK-DAG: memref.global "private" @__ag_weights : memref<288xi8> = uninitialized
// The splat 2.0 is a fill (0x40000000), not bytes.
// CHECK-DAG: memref.global "private" constant @__ag_constants : memref<32xi8> = uninitialized {ag.constant_fills = array<i64: 0, 32, 1073741824>
// CHECK-DAG: ag.weight @w trainable : tensor<4x8xf32> {{.*}}{ag.place = #ag.place<weights, 0>}
// CHECK-DAG: ag.weight @b : tensor<8xf32> = dense<5.000000e-01> {ag.place = #ag.place<weights, 256>}
// CHECK-DAG: memref.global "private" @__ag_scratch_mlp : memref<320xi8> = uninitialized

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[IN:.*]]: memref<32xi8>, %[[OUT:.*]]: memref<288xi8>)
// CHECK-SAME: ag.entry = "forward"
// CHECK-SAME: ag.input_layout = [#ag.segment<"x", [2, 4], f32, offset = 0>]
// CHECK-SAME: ag.output_layout = [#ag.segment<"y", [2, 8], f32, offset = 0>, #ag.segment<"xin", [2, 4], f32, offset = 256>]
// CHECK-SAME: ag.probes = [#ag.probe<scratch, #ag.segment<"pre", [2, 8], f32, offset = 0>>]
// CHECK-SAME: ag.scratch = @__ag_scratch_mlp
// The matmul template binds x and w as vec4 elements along their
// contiguous dimensions (K = 4 for x, N = 8 for w), and its result as vec4
// elements along N; the add reads the same bytes as 2x8.
// CHECK: %[[XV:.*]] = ag.binding <input, 0> : memref<2xvector<4xf32>>
// CHECK: %[[W:.*]] = ag.binding <weights, 0> : memref<8xvector<4xf32>>
// CHECK: %[[T0V:.*]] = ag.binding <scratch, 0> : memref<4xvector<4xf32>>
// Each launch carries its work estimate: the matmul's 2*8*4 = 64
// multiply-adds plus 8 per bound float (8 + 32 + 16 floats): 512; the add
// binds 16 + 8 + 16 floats: 320.
// CHECK: gpu.launch_func @[[MM:matmul_[0-9]+]]::@[[MM]] blocks in ({{.*}}) threads in ({{.*}}) args(%[[XV]] : memref<2xvector<4xf32>>, %[[W]] : memref<8xvector<4xf32>>, %[[T0V]] : memref<4xvector<4xf32>>) {ag.work = 512 : i64}
// CHECK: %[[T0:.*]] = ag.binding <scratch, 0> : memref<2x8xf32>
// CHECK: %[[B:.*]] = ag.binding <weights, 256> : memref<8xf32>
// CHECK: %[[T1:.*]] = ag.binding <scratch, 256> : memref<2x8xf32>
// CHECK: gpu.launch_func @add_{{[0-9]+}}::@add_{{[0-9]+}} {{.*}} args(%[[T0]] : memref<2x8xf32>, %[[B]] : memref<8xf32>, %[[T1]] : memref<2x8xf32>) {ag.work = 320 : i64}
// The matmul result is dead after the add: the mul (the probed value) reuses its range.
// CHECK: %[[C:.*]] = ag.binding <constants, 0> : memref<8xf32>
// CHECK: gpu.launch_func @mul_{{[0-9]+}}::@mul_{{[0-9]+}} {{.*}} args(%[[T1]] : memref<2x8xf32>, %[[C]] : memref<8xf32>, %[[T0]] : memref<2x8xf32>)
// CHECK: gpu.launch_func @tanh_{{[0-9]+}}::@tanh_{{[0-9]+}} {{.*}} args(%[[T0]] : memref<2x8xf32>, %[[T1]] : memref<2x8xf32>)
// The last op writes output "y" in place.
// CHECK: %[[Y:.*]] = ag.binding <output, 0> : memref<2x8xf32>
// CHECK: gpu.launch_func @relu_{{[0-9]+}}::@relu_{{[0-9]+}} {{.*}} args(%[[T1]] : memref<2x8xf32>, %[[Y]] : memref<2x8xf32>)
// An input returned as an output is copied.
// CHECK: %[[X:.*]] = ag.binding <input, 0> : memref<2x4xf32>
// CHECK: %[[XIN:.*]] = ag.binding <output, 256> : memref<2x4xf32>
// CHECK: gpu.launch_func @copy_{{[0-9]+}}::@copy_{{[0-9]+}} {{.*}} args(%[[X]] : memref<2x4xf32>, %[[XIN]] : memref<2x4xf32>)
// CHECK: return

// The kernels: one gpu.module each, one work item per invocation (the
// last workgroup's spare invocations skip it).
// The matmul's work item is an 8x8 tile of the result, or 4 along a side
// under 8: one 4x8 tile here. K = 4 is one block: each of A's rows is one
// vector load, each of B's 4 rows two (vec4 along N).
// CHECK: gpu.module @[[MM]]
// CHECK: gpu.func @[[MM]](%[[A:.*]]: memref<2xvector<4xf32>>, %[[BB:.*]]: memref<8xvector<4xf32>>, %[[R:.*]]: memref<4xvector<4xf32>>) kernel attributes {ag.binding_shapes = [array<i64: 2, 4>, array<i64: 4, 8>, array<i64: 2, 8>], spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>}
// CHECK: %[[IIN:.*]] = arith.cmpi ult, %[[I:.*]], %c1
// CHECK: scf.if %[[IIN]]
// CHECK: %[[A0:.*]] = memref.load %[[A]][%{{.*}}] : memref<2xvector<4xf32>>
// CHECK: vector.extract %[[A0]][0] : f32 from vector<4xf32>
// CHECK: memref.load %[[BB]][%c0] : memref<8xvector<4xf32>>
// CHECK: memref.load %[[BB]][%c1] : memref<8xvector<4xf32>>
// CHECK: arith.mulf
// CHECK: arith.addf
// Four columns per store: row r's columns 0-3 are vector 2 r.
// CHECK: %[[V:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: memref.store %[[V]], %[[R]][%{{.*}}] : memref<4xvector<4xf32>>
// CHECK: gpu.module @add_
// CHECK: gpu.module @mul_
// CHECK: gpu.module @tanh_
// CHECK: math.exp
// CHECK: math.copysign
// CHECK: gpu.module @relu_
// CHECK: arith.maximumf
// CHECK: gpu.module @copy_

// -----

// Identical ops share one kernel; reductions loop over the reduced axis.
ag.forward @shared(%x: tensor<3x5xf32> {ag.name = "x"}) -> (tensor<3xf32> {ag.name = "r"}, tensor<1x5xf32> {ag.name = "c"}) {
  %0 = ag.exp %x : tensor<3x5xf32>
  %1 = ag.exp %0 : tensor<3x5xf32>
  %r = ag.sum %1 axis = 1 : tensor<3x5xf32> -> tensor<3xf32>
  %c = ag.mean %1 axis = 0 keepdim : tensor<3x5xf32> -> tensor<1x5xf32>
  ag.return %r, %c : tensor<3xf32>, tensor<1x5xf32>
}
// CHECK-LABEL: func.func @shared
// CHECK: gpu.launch_func @[[EXP:exp_[0-9]+]]::@[[EXP]]
// CHECK: gpu.launch_func @[[EXP]]::@[[EXP]]
// CHECK: gpu.launch_func @sum_
// CHECK: gpu.launch_func @mean_
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.module @[[EXP]]
// CHECK-NOT: gpu.module @exp_
// CHECK: gpu.module @sum_
// CHECK: scf.for %{{.*}} = %c0 to %c5 step %c1 iter_args
// CHECK: gpu.module @mean_
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args
// CHECK: arith.divf %{{.*}}, %cst

// -----

// The launch (ceil(items / 64) workgroups, at most 65535) gives each work
// item its own invocation: 64 tiles of 8x8 fill one workgroup exactly and
// need no guard; past 65535 x 64 items a grid-stride loop runs the rest.
ag.forward @cover(%x: tensor<64x64xf32> {ag.name = "x"}, %y: tensor<4194305xf32> {ag.name = "y"}) -> (tensor<64x64xf32> {ag.name = "m"}, tensor<4194305xf32> {ag.name = "e"}) {
  %m = ag.matmul %x, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %e = ag.exp %y : tensor<4194305xf32>
  ag.return %m, %e : tensor<64x64xf32>, tensor<4194305xf32>
}
// CHECK-LABEL: func.func @cover
// CHECK: gpu.launch_func @[[MM:matmul_[0-9]+]]::@[[MM]] blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.launch_func @[[EXP:exp_[0-9]+]]::@[[EXP]] blocks in (%[[G:.*]], %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @[[MM]](
// CHECK-NOT: scf.if
// CHECK: %[[T:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// CHECK-NOT: scf.if
// CHECK: arith.divui %[[T]], %c8
// CHECK: gpu.func @[[EXP]](
// CHECK: %[[START:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// CHECK: %[[GRID:.*]] = gpu.grid_dim x
// CHECK: %[[STEP:.*]] = arith.muli %[[GRID]], %c64
// CHECK: scf.for %{{.*}} = %[[START]] to %c4194305 step %[[STEP]]
// CHECK: math.exp
