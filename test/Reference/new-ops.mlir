// A small classifier built from the newer ops, evaluated with i32 inputs
// written by ../Inputs/write_npy.py. Values by hand:
//   rows of @emb for ids [3, 0, 3]: [[30, 31], [0, 1], [30, 31]]
//   logits = concat(col 0, col 1, 0) - rowmax, clamped to [-2, 0]:
//     [[-1, 0, -2], [-1, 0, -1], [-1, 0, -2]]
//   loss (labels [1, 0, 2]) = mean(0.407606, 1.551445, 2.407606) = 1.455552
//   softmax row 0 = [e^-1, 1, e^-2] / 1.503215
//   mse(logits, logits^T) = 6 / 9; clipped = max(min(flat(logits^T), -0.5), -1.5)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Inputs/write_npy.py %t/ids.npy i32 - 3,0,3
// RUN: %python %S/../Inputs/write_npy.py %t/labels.npy i32 - 1,0,2
// RUN: capture-interp %s --entry main --input ids=%t/ids.npy --input labels=%t/labels.npy | FileCheck %s
// RUN: capture-interp %s --entry main --input ids=%t/ids.npy --input labels=%t/labels.npy --precision f64 --output-dir %t/f64 | FileCheck %s
// CHECK: output loss []: 1.45555{{$}}
// CHECK-NEXT: output probs [3, 3]: 0.244728 0.665241 0.0900306 0.211942 0.576117 0.211942 0.244728 0.665241 ...{{$}}
// CHECK-NEXT: output lsm [3, 3]: -1.40761 -0.407606 -2.40761 -1.55144 -0.551445 -1.55144 -1.40761 -0.407606 ...{{$}}
// CHECK-NEXT: output mse []: 0.666667{{$}}
// CHECK-NEXT: output clipped [9]: -1 -1 -1 -0.5 -0.5 -0.5 -1.5 -1 ...{{$}}
// CHECK-NEXT: output ids_out [3]: 3 0 3{{$}}

// The i32 output is written as i32 (the same bytes as the input file), and
// --compare reads it back as i32.
// RUN: cmp %t/ids.npy %t/f64/ids_out.npy
// RUN: capture-interp %s --entry main --input ids=%t/ids.npy --input labels=%t/labels.npy --compare %t/f64 | FileCheck %s --check-prefix=COMPARE
// COMPARE: compare loss: {{.*}}: ok
// COMPARE: compare ids_out: max abs err 0, scale 3, relative 0: ok

// Out-of-range labels and indices name the op, its location, the value,
// its position and the valid range.
// RUN: %python %S/../Inputs/write_npy.py %t/bad-labels.npy i32 - 1,3,0
// RUN: not capture-interp %s --entry main --input ids=%t/ids.npy --input labels=%t/bad-labels.npy 2>&1 | FileCheck %s --check-prefix=LABEL
// RUN: %python %S/../Inputs/write_npy.py %t/bad-ids.npy i32 - 0,0,-1
// RUN: not capture-interp %s --entry main --input ids=%t/bad-ids.npy --input labels=%t/labels.npy 2>&1 | FileCheck %s --check-prefix=INDEX

// An i32 input needs an i32 file, an f32 input (or weight) an f32 file.
// RUN: capture-interp %s --entry make_f32 --output-dir %t/f32
// RUN: not capture-interp %s --entry main --input ids=%t/f32/ids.npy --input labels=%t/labels.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: capture-interp: error: input 'ids': {{.*}}ids.npy holds f32 data, expected i32
// RUN: not capture-interp %s --entry main --input ids=%t/ids.npy --input labels=%t/labels.npy --param emb=%t/ids.npy 2>&1 | FileCheck %s --check-prefix=PARAM
// PARAM: capture-interp: error: weight 'emb': {{.*}}ids.npy holds i32 data, expected f32

ag.weight @emb : tensor<4x2xf32> = dense<[[0.0, 1.0], [10.0, 11.0], [20.0, 21.0], [30.0, 31.0]]>

ag.forward @main(%ids: tensor<3xi32> {ag.name = "ids"}, %labels: tensor<3xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<3x3xf32> {ag.name = "probs"},
        tensor<3x3xf32> {ag.name = "lsm"}, tensor<f32> {ag.name = "mse"},
        tensor<9xf32> {ag.name = "clipped"}, tensor<3xi32> {ag.name = "ids_out"}) {
  %table = ag.read_weight @emb : tensor<4x2xf32>
  // INDEX: new-ops.mlir:[[@LINE+1]]:8: error: 'ag.get_rows' index -1 at position 2 is out of range: indices must lie in [0, 4) (the table [4, 2] has 4 rows)
  %e = ag.get_rows %table, %ids : (tensor<4x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
  %c0 = ag.slice %e axis = 1 start = 0 end = 1 : tensor<3x2xf32> -> tensor<3x1xf32>
  %c1 = ag.slice %e axis = -1 start = 1 end = 2 : tensor<3x2xf32> -> tensor<3x1xf32>
  %z = ag.constant dense<0.0> : tensor<3x1xf32>
  %logits = ag.concat %c0, %c1, %z axis = 1 : (tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %m = ag.max %logits axis = -1 keepdim : tensor<3x3xf32> -> tensor<3x1xf32>
  %centred = ag.sub %logits, %m : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %cl = ag.clamp %centred min = -2.0 max = 0.0 : tensor<3x3xf32>
  // LABEL: new-ops.mlir:[[@LINE+1]]:11: error: 'ag.cross_entropy' label 3 at position 1 is out of range: labels must lie in [0, 3) (logits [3, 3] have 3 classes)
  %loss = ag.cross_entropy %cl, %labels : (tensor<3x3xf32>, tensor<3xi32>) -> tensor<f32>
  %probs = ag.softmax %cl axis = 1 : tensor<3x3xf32>
  %lsm = ag.log_softmax %cl axis = -1 : tensor<3x3xf32>
  %tr = ag.transpose %cl permutation = [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  %mse = ag.mse %cl, %tr : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<f32>
  %flat = ag.reshape %tr : tensor<3x3xf32> -> tensor<9xf32>
  %hi = ag.constant dense<-0.5> : tensor<f32>
  %hib = ag.broadcast_to %hi : tensor<f32> -> tensor<9xf32>
  %lo = ag.constant dense<-1.5> : tensor<f32>
  %mn = ag.minimum %flat, %hib : (tensor<9xf32>, tensor<9xf32>) -> tensor<9xf32>
  %clipped = ag.maximum %mn, %lo : (tensor<9xf32>, tensor<f32>) -> tensor<9xf32>
  ag.return %loss, %probs, %lsm, %mse, %clipped, %ids : tensor<f32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<f32>, tensor<9xf32>, tensor<3xi32>
}

// An f32 file named ids.npy.
ag.forward @make_f32() -> (tensor<3xf32> {ag.name = "ids"}) {
  %c = ag.constant dense<[3.0, 0.0, 3.0]> : tensor<3xf32>
  ag.return %c : tensor<3xf32>
}
