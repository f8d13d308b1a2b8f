// RUN: capture-opt %s -ag-pack-io -ag-form-dispatch-regions -ag-plan-buffers -ag-lower-to-gpu -canonicalize -cse | FileCheck %s
// RUN: capture-opt %s -ag-pack-io -ag-form-dispatch-regions -ag-plan-buffers -ag-lower-to-gpu=min-matmul-workgroups=0 -canonicalize -cse | FileCheck %s --check-prefix=OFF
// RUN: capture-opt %s -ag-pack-io -ag-form-dispatch-regions -ag-plan-buffers -ag-lower-to-gpu=target=gpu -canonicalize -cse | FileCheck %s --check-prefix=GPU
// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-interp %s --make-inputs %t/in --seed 5
// RUN: capture-aot %s -o %t/m.capmod
// RUN: capture-run %t/m.capmod --input a=%t/in/a.npy --input w=%t/in/w.npy --input b=%t/in/b.npy --input bias=%t/in/bias.npy --input c=%t/in/c.npy --input d=%t/in/d.npy --input e=%t/in/e.npy --input f=%t/in/f.npy --input g=%t/in/g.npy --input h=%t/in/h.npy --input v=%t/in/v.npy --output-dir %t/out > /dev/null
// RUN: capture-interp %s --input a=%t/in/a.npy --input w=%t/in/w.npy --input b=%t/in/b.npy --input bias=%t/in/bias.npy --input c=%t/in/c.npy --input d=%t/in/d.npy --input e=%t/in/e.npy --input f=%t/in/f.npy --input g=%t/in/g.npy --input h=%t/in/h.npy --input v=%t/in/v.npy --compare %t/out --tolerance 1e-5 | FileCheck %s --check-prefix=CMP

// A matmul kernel of at least 4M multiply-adds whose tiles would fill
// fewer than min-matmul-workgroups (8) workgroups of workgroup-size (64)
// runs in smaller ones: the largest multiple of the subgroup size (8 on
// lavapipe, 32 on gpu) that still gives 8, one subgroup at the least.
// llvmpipe runs each workgroup on one thread, so a long-K product of few
// tiles in one workgroup would leave its other threads idle. Smaller
// matmuls (where a step runs on the submitting thread, the extra
// workgroups would only cost) and other kernels keep workgroup-size. The
// replay matches the interpreter.

// 64 tiles (64x64, K = 1024): 8 workgroups of 8, which share loads in 2x4
// groups.
// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @[[M0:matmul_[0-9]+]]::@[[M0]] blocks in (%c8, %c1, %c1) threads in (%c8, %c1, %c1)
// 96 tiles (64x96, K = 1024, with an epilogue): 12 workgroups of 8.
// CHECK: gpu.launch_func @[[M1:matmul_add_[0-9]+]]::@[[M1]] blocks in (%c12, %c1, %c1) threads in (%c8, %c1, %c1)
// 256 tiles (128x128, K = 256): 8 workgroups of 32.
// CHECK: gpu.launch_func @[[M2:matmul_[0-9]+]]::@[[M2]] blocks in (%c8, %c1, %c1) threads in (%c32, %c1, %c1)
// 512 tiles (256x128, K = 128): 8 workgroups of 64, as without the split.
// CHECK: gpu.launch_func @[[M3:matmul_[0-9]+]]::@[[M3]] blocks in (%c8, %c1, %c1) threads in (%c64, %c1, %c1)
// 4 tiles (16x16, K = 16384): one workgroup of 8, half of it idle.
// CHECK: gpu.launch_func @[[M4:matmul_[0-9]+]]::@[[M4]] blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
// 64 tiles of 64 multiply-adds each (64x64x64, 262144 in all): one
// workgroup of 64.
// CHECK: gpu.launch_func @[[M5:matmul_[0-9]+]]::@[[M5]] blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
// An elementwise kernel of 16 elements keeps its workgroup of 64.
// CHECK: gpu.launch_func @[[E:exp_[0-9]+]]::@[[E]] blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @[[M0]]({{.*}}ag.subgroup_multiple = 8 : i64, ag.tile_group = array<i64: 2, 4>, {{.*}}workgroup_size = [8, 1, 1]
// CHECK: gpu.func @[[M4]](
// CHECK: scf.if

// OFF-LABEL: func.func @f
// OFF-COUNT-7: threads in (%c64, %c1, %c1)

// GPU-LABEL: func.func @f
// GPU: blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1)
// GPU: blocks in (%c3, %c1, %c1) threads in (%c32, %c1, %c1)
// GPU: blocks in (%c8, %c1, %c1) threads in (%c32, %c1, %c1)
// GPU: blocks in (%c8, %c1, %c1) threads in (%c64, %c1, %c1)
// GPU: blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
// GPU: blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
// GPU: blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)

// CMP-DAG: compare m0: {{.*}}: ok
// CMP-DAG: compare m1: {{.*}}: ok
// CMP-DAG: compare m2: {{.*}}: ok
// CMP-DAG: compare m3: {{.*}}: ok
// CMP-DAG: compare m4: {{.*}}: ok
// CMP-DAG: compare m5: {{.*}}: ok
// CMP-NOT: FAIL

ag.forward @f(%a: tensor<64x1024xf32> {ag.name = "a"}, %w: tensor<64x1024xf32> {ag.name = "w"},
              %b: tensor<1024x96xf32> {ag.name = "b"}, %bias: tensor<64x96xf32> {ag.name = "bias"},
              %c: tensor<128x256xf32> {ag.name = "c"}, %d: tensor<256x128xf32> {ag.name = "d"},
              %e: tensor<16x16384xf32> {ag.name = "e"}, %f: tensor<64x64xf32> {ag.name = "f"},
              %g: tensor<16384x16xf32> {ag.name = "g"}, %h: tensor<128x128xf32> {ag.name = "h"},
              %v: tensor<16xf32> {ag.name = "v"})
    -> (tensor<64x64xf32> {ag.name = "m0"}, tensor<64x96xf32> {ag.name = "m1"},
        tensor<128x128xf32> {ag.name = "m2"}, tensor<256x128xf32> {ag.name = "m3"},
        tensor<16x16xf32> {ag.name = "m4"}, tensor<64x64xf32> {ag.name = "m5"},
        tensor<16xf32> {ag.name = "x"}) {
  %m0 = ag.matmul %a, %w {transpose_b} : (tensor<64x1024xf32>, tensor<64x1024xf32>) -> tensor<64x64xf32>
  %p1 = ag.matmul %a, %b : (tensor<64x1024xf32>, tensor<1024x96xf32>) -> tensor<64x96xf32>
  %m1 = ag.add %p1, %bias : (tensor<64x96xf32>, tensor<64x96xf32>) -> tensor<64x96xf32>
  %m2 = ag.matmul %c, %c {transpose_b} : (tensor<128x256xf32>, tensor<128x256xf32>) -> tensor<128x128xf32>
  %m3 = ag.matmul %d, %h : (tensor<256x128xf32>, tensor<128x128xf32>) -> tensor<256x128xf32>
  %m4 = ag.matmul %e, %g : (tensor<16x16384xf32>, tensor<16384x16xf32>) -> tensor<16x16xf32>
  %m5 = ag.matmul %f, %f : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %x = ag.exp %v : tensor<16xf32>
  ag.return %m0, %m1, %m2, %m3, %m4, %m5, %x : tensor<64x64xf32>, tensor<64x96xf32>, tensor<128x128xf32>, tensor<256x128xf32>, tensor<16x16xf32>, tensor<64x64xf32>, tensor<16xf32>
}
