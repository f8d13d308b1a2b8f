// RUN: capture-opt %s -split-input-file --pass-pipeline='builtin.module(spirv.module(ag-spirv-texel-reads))' | FileCheck %s

// With read_path = texel, every storage-buffer variable of f32 or
// vector<4xf32> that the kernel only loads becomes an RGBA32F texel buffer
// at the same binding: a vec4 load is one texel read, an f32 load reads the
// texel holding it and extracts its lane. Written variables, integer
// variables and variables over max_texel_elements stay storage buffers.

module attributes {ag.target = #ag.target<read_path = texel, subgroup_size = 8, max_texel_elements = 65536, max_loop_iterations = 65535>} {
  spirv.module @__spv__k Logical GLSL450 {
    spirv.GlobalVariable @vec bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<8 x vector<4xf32>, stride=16> [0])>, StorageBuffer>
    spirv.GlobalVariable @scalar bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>
    spirv.GlobalVariable @labels bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.array<6 x i32, stride=4> [0])>, StorageBuffer>
    spirv.GlobalVariable @huge bind(0, 3) : !spirv.ptr<!spirv.struct<(!spirv.array<262148 x f32, stride=4> [0])>, StorageBuffer>
    spirv.GlobalVariable @out bind(0, 4) : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>
    spirv.func @k() "None" {
      %i = spirv.Constant 5 : i32
      %c0 = spirv.Constant 0 : i32
      %pv = spirv.mlir.addressof @vec : !spirv.ptr<!spirv.struct<(!spirv.array<8 x vector<4xf32>, stride=16> [0])>, StorageBuffer>
      %av = spirv.AccessChain %pv[%c0, %i] : !spirv.ptr<!spirv.struct<(!spirv.array<8 x vector<4xf32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xf32>, StorageBuffer>
      %v = spirv.Load "StorageBuffer" %av : vector<4xf32>
      %v0 = spirv.CompositeExtract %v[0 : i32] : vector<4xf32>
      %ps = spirv.mlir.addressof @scalar : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>
      %as = spirv.AccessChain %ps[%c0, %i] : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      %s = spirv.Load "StorageBuffer" %as : f32
      %pl = spirv.mlir.addressof @labels : !spirv.ptr<!spirv.struct<(!spirv.array<6 x i32, stride=4> [0])>, StorageBuffer>
      %al = spirv.AccessChain %pl[%c0, %i] : !spirv.ptr<!spirv.struct<(!spirv.array<6 x i32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i32, StorageBuffer>
      %l = spirv.Load "StorageBuffer" %al : i32
      %lf = spirv.ConvertSToF %l : i32 to f32
      %ph = spirv.mlir.addressof @huge : !spirv.ptr<!spirv.struct<(!spirv.array<262148 x f32, stride=4> [0])>, StorageBuffer>
      %ah = spirv.AccessChain %ph[%c0, %i] : !spirv.ptr<!spirv.struct<(!spirv.array<262148 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      %h = spirv.Load "StorageBuffer" %ah : f32
      %po = spirv.mlir.addressof @out : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>
      %ao = spirv.AccessChain %po[%c0, %i] : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      %old = spirv.Load "StorageBuffer" %ao : f32
      %sum0 = spirv.FAdd %v0, %s : f32
      %sum1 = spirv.FAdd %sum0, %lf : f32
      %sum2 = spirv.FAdd %sum1, %h : f32
      %sum3 = spirv.FAdd %sum2, %old : f32
      spirv.Store "StorageBuffer" %ao, %sum3 : f32
      spirv.Return
    }
    spirv.EntryPoint "GLCompute" @k, @vec, @scalar, @out
    spirv.ExecutionMode @k "LocalSize", 1, 1, 1
  }
}

// CHECK-LABEL: spirv.module @__spv__k
// CHECK-DAG: spirv.GlobalVariable @vec_texels bind(0, 0) : !spirv.ptr<!spirv.image<f32, Buffer, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba32f>, UniformConstant>
// CHECK-DAG: spirv.GlobalVariable @scalar_texels bind(0, 1) : !spirv.ptr<!spirv.image<f32, Buffer, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba32f>, UniformConstant>
// CHECK-DAG: spirv.GlobalVariable @labels bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.array<6 x i32, stride=4> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @huge bind(0, 3) : !spirv.ptr<!spirv.struct<(!spirv.array<262148 x f32, stride=4> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @out bind(0, 4) : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>
// CHECK-NOT: spirv.GlobalVariable @vec bind
// CHECK-NOT: spirv.GlobalVariable @scalar bind
// CHECK-LABEL: spirv.func @k
// CHECK-DAG: %[[SIMG:.*]] = spirv.Load "UniformConstant" %{{.*}} : !spirv.image<f32, Buffer, {{.*}}Rgba32f>
// CHECK-DAG: %[[VIMG:.*]] = spirv.Load "UniformConstant" %{{.*}} : !spirv.image<f32, Buffer, {{.*}}Rgba32f>
// CHECK-DAG: %[[I:.*]] = spirv.Constant 5 : i32
// The vec4 element is texel 5.
// CHECK: %[[V:.*]] = spirv.ImageRead %[[VIMG]], %[[I]] : {{.*}}, i32 -> vector<4xf32>
// CHECK: spirv.CompositeExtract %[[V]][0 : i32]
// The f32 element 5 is lane 1 of texel 1.
// CHECK: %[[TEXEL:.*]] = spirv.ShiftRightLogical %[[I]], %{{.*}} : i32, i32
// CHECK: %[[T:.*]] = spirv.ImageRead %[[SIMG]], %[[TEXEL]]
// CHECK: %[[LANE:.*]] = spirv.BitwiseAnd %[[I]], %{{.*}} : i32
// CHECK: spirv.VectorExtractDynamic %[[T]][%[[LANE]]] : vector<4xf32>, i32
// CHECK: spirv.Load "StorageBuffer" %{{.*}} : i32
// CHECK: spirv.Load "StorageBuffer" %{{.*}} : f32
// CHECK: spirv.Load "StorageBuffer" %{{.*}} : f32
// CHECK: spirv.Store "StorageBuffer"
// CHECK: spirv.EntryPoint "GLCompute" @k, @vec_texels, @scalar_texels, @out

// -----

// read_path = ssbo (the gpu preset) changes nothing.

module attributes {ag.target = #ag.target<read_path = ssbo, subgroup_size = 32, max_texel_elements = 65536, max_loop_iterations = 0>} {
  spirv.module @__spv__k Logical GLSL450 {
    spirv.GlobalVariable @in bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>
    spirv.GlobalVariable @out bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>
    spirv.func @k() "None" {
      %c0 = spirv.Constant 0 : i32
      %p = spirv.mlir.addressof @in : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>
      %a = spirv.AccessChain %p[%c0, %c0] : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      %x = spirv.Load "StorageBuffer" %a : f32
      %po = spirv.mlir.addressof @out : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>
      %ao = spirv.AccessChain %po[%c0, %c0] : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      spirv.Store "StorageBuffer" %ao, %x : f32
      spirv.Return
    }
    spirv.EntryPoint "GLCompute" @k
    spirv.ExecutionMode @k "LocalSize", 1, 1, 1
  }
}

// CHECK-LABEL: spirv.module @__spv__k
// CHECK: spirv.GlobalVariable @in bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<6 x f32, stride=4> [0])>, StorageBuffer>
// CHECK-NOT: ImageRead
// CHECK: spirv.Load "StorageBuffer"
