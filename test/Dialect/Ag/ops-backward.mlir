// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s

// The ops the backward pass builds survive print -> parse -> print.

// CHECK-LABEL: ag.forward @backward
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {ag.name = "x"}, %[[L:.*]]: tensor<2xi32> {ag.name = "labels"})
ag.forward @backward(%x: tensor<2x3xf32> {ag.name = "x"}, %labels: tensor<2xi32> {ag.name = "labels"})
    -> (tensor<2x3xf32> {ag.name = "m"}, tensor<2x3xf32> {ag.name = "h"}, tensor<5x3xf32> {ag.name = "s"}) {
  %zero = ag.constant dense<0.0> : tensor<f32>
  // CHECK: %[[M:.*]] = ag.compare le, %[[X]], %{{.*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %m = ag.compare le, %x, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: ag.compare eq
  %e = ag.compare eq, %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: ag.compare ne
  %n = ag.compare ne, %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: ag.compare ge
  %g = ag.compare ge, %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: %[[H:.*]] = ag.one_hot %[[L]] : tensor<2xi32> -> tensor<2x3xf32>
  %h = ag.one_hot %labels : tensor<2xi32> -> tensor<2x3xf32>
  // CHECK: %[[S:.*]] = ag.scatter_add_rows %[[X]], %[[L]] : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<5x3xf32>
  %s = ag.scatter_add_rows %x, %labels : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<5x3xf32>
  // CHECK: ag.return %[[M]], %[[H]], %[[S]]
  ag.return %m, %h, %s : tensor<2x3xf32>, tensor<2x3xf32>, tensor<5x3xf32>
}
