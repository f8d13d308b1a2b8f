// capture-interp evaluates ag.train_step entries like ag.forward ones,
// including the ops of the backward pass (ag.one_hot, ag.compare,
// ag.scatter_add_rows). @train is a hand-written backward pass of
//   loss = sum(emb[ids] * one_hot(labels)):
//   rows = emb[[3, 0, 3]] = [[1, 1], [0, 1], [1, 1]]
//   hot = one_hot([1, 0, 1]) = [[0, 1], [1, 0], [0, 1]]; loss = 1 + 0 + 1
//   mask = rows > 0.5 = [[1, 1], [0, 1], [1, 1]]
//   grad/emb = scatter_add_rows(hot, ids): row 3 gets [0, 1] twice, row 0
//   gets [1, 0].
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Inputs/write_npy.py %t/ids.npy i32 - 3,0,3
// RUN: %python %S/../Inputs/write_npy.py %t/labels.npy i32 - 1,0,1
// RUN: capture-interp %s --entry train --input ids=%t/ids.npy --input labels=%t/labels.npy | FileCheck %s
// RUN: capture-interp %s --entry train --input ids=%t/ids.npy --input labels=%t/labels.npy --precision f64 | FileCheck %s
// CHECK: output loss []: 2{{$}}
// CHECK-NEXT: output mask [3, 2]: 1 1 0 1 1 1{{$}}
// CHECK-NEXT: output grad/emb [4, 2]: 1 0 0 0 0 0 0 2{{$}}

// --make-inputs bounds i32 inputs by the backward ops too: labels feed an
// ag.one_hot with 2 classes, ids an ag.get_rows and an ag.scatter_add_rows
// with 4 rows. The inputs it writes evaluate.
// RUN: capture-interp %s --entry train --make-inputs %t/made | FileCheck %s --check-prefix=MAKE
// MAKE: wrote input ids [3] (i32 in [0, 4)) to {{.*}}ids.npy
// MAKE-NEXT: wrote input labels [3] (i32 in [0, 2)) to {{.*}}labels.npy
// RUN: capture-interp %s --entry train --input ids=%t/made/ids.npy --input labels=%t/made/labels.npy | FileCheck %s --check-prefix=MADE
// MADE: output loss []:

// An unknown entry is reported with the entries of both kinds.
// RUN: not capture-interp %s --entry nope 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unknown entry @nope; the module's entries are @predict (ag.forward), @train (ag.train_step)
// RUN: not capture-interp %s 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// AMBIGUOUS: capture-interp: error: the module has 2 entries (@predict, @train); pick one with --entry

// An out-of-range label is reported by the op that reads it first.
// RUN: %python %S/../Inputs/write_npy.py %t/bad-labels.npy i32 - 1,2,0
// RUN: not capture-interp %s --entry train --input ids=%t/ids.npy --input labels=%t/bad-labels.npy 2>&1 | FileCheck %s --check-prefix=BADLABEL
// BADLABEL: error: 'ag.one_hot' label 2 at position 1 is out of range: labels must lie in [0, 2) (the result [3, 2] has 2 classes)

ag.weight @emb trainable : tensor<4x2xf32> = dense<[[0.0, 1.0], [2.0, 0.0], [0.0, 0.0], [1.0, 1.0]]>

ag.forward @predict(%ids: tensor<3xi32> {ag.name = "ids"}) -> (tensor<3x2xf32> {ag.name = "rows"}) {
  %e = ag.read_weight @emb : tensor<4x2xf32>
  %rows = ag.get_rows %e, %ids : (tensor<4x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
  ag.return %rows : tensor<3x2xf32>
}

ag.train_step @train(%ids: tensor<3xi32> {ag.name = "ids"}, %labels: tensor<3xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<3x2xf32> {ag.name = "mask"}, tensor<4x2xf32> {ag.name = "grad/emb"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %e = ag.read_weight @emb : tensor<4x2xf32>
  %rows = ag.get_rows %e, %ids : (tensor<4x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
  %hot = ag.one_hot %labels : tensor<3xi32> -> tensor<3x2xf32>
  %picked = ag.mul %rows, %hot : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %loss = ag.sum %picked : tensor<3x2xf32> -> tensor<f32>
  %half = ag.constant dense<0.5> : tensor<f32>
  %mask = ag.compare gt, %rows, %half : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %grad = ag.scatter_add_rows %hot, %ids : (tensor<3x2xf32>, tensor<3xi32>) -> tensor<4x2xf32>
  ag.return %loss, %mask, %grad : tensor<f32>, tensor<3x2xf32>, tensor<4x2xf32>
}
