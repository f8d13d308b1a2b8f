// RUN: capture-opt %s -split-input-file -ag-insert-index-checks | FileCheck %s
// RUN: capture-opt %s -split-input-file -ag-insert-index-checks -ag-insert-index-checks | FileCheck %s

// One check per distinct (indices, bound): the cross-entropy and the
// one-hot of the same labels share one; get_rows on the same values with
// another bound has its own, and so do other indices. Each
// status is a new output, listed in ag.index_checks. Running it twice
// changes nothing.

// CHECK-LABEL: ag.forward @f
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32> {ag.name = "x"}, %[[L:.*]]: tensor<4xi32> {ag.name = "labels"}, %[[T:.*]]: tensor<7x2xf32> {ag.name = "t"}, %[[IDS:.*]]: tensor<4xi32> {ag.name = "ids"})
// CHECK-SAME: -> (tensor<f32> {ag.name = "loss"}, tensor<4x3xf32> {ag.name = "hot"}, tensor<4x2xf32> {ag.name = "rows"}, tensor<4x2xf32> {ag.name = "again"}, tensor<2xi32> {ag.name = "index_check.0"}, tensor<2xi32> {ag.name = "index_check.1"}, tensor<2xi32> {ag.name = "index_check.2"})
// CHECK-SAME: ag.index_checks = [#ag.index_check<output = "index_check.0", op = "ag.cross_entropy", input = "labels", bound = 3, loc = "{{.*}}ag-insert-index-checks.mlir:[[#@LINE+11]]:8">, #ag.index_check<output = "index_check.1", op = "ag.get_rows", input = "labels", bound = 7, loc = "{{.*}}:[[#@LINE+13]]:8">, #ag.index_check<output = "index_check.2", op = "ag.get_rows", input = "ids", bound = 7, loc = "{{.*}}:[[#@LINE+14]]:8">]
// CHECK-DAG: %[[S0:.*]], %{{.*}} = ag.check_indices %[[L]] {bound = 3 : i64, op = "ag.cross_entropy"}
// CHECK-DAG: %[[S1:.*]], %{{.*}} = ag.check_indices %[[L]] {bound = 7 : i64, op = "ag.get_rows"}
// CHECK-DAG: %[[R:.*]] = ag.get_rows %[[T]], %[[L]]
// CHECK-DAG: %[[S2:.*]], %{{.*}} = ag.check_indices %[[IDS]] {bound = 7 : i64, op = "ag.get_rows"}
// CHECK-NOT: ag.check_indices
// CHECK: ag.return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[S0]], %[[S1]], %[[S2]] :
ag.forward @f(%x: tensor<4x3xf32> {ag.name = "x"}, %labels: tensor<4xi32> {ag.name = "labels"},
              %t: tensor<7x2xf32> {ag.name = "t"}, %ids: tensor<4xi32> {ag.name = "ids"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<4x3xf32> {ag.name = "hot"},
        tensor<4x2xf32> {ag.name = "rows"}, tensor<4x2xf32> {ag.name = "again"}) {
  %l = ag.cross_entropy %x, %labels : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<f32>
  %h = ag.one_hot %labels : tensor<4xi32> -> tensor<4x3xf32>
  %r = ag.get_rows %t, %labels : (tensor<7x2xf32>, tensor<4xi32>) -> tensor<4x2xf32>
  %a = ag.get_rows %t, %ids : (tensor<7x2xf32>, tensor<4xi32>) -> tensor<4x2xf32>
  ag.return %l, %h, %r, %a : tensor<f32>, tensor<4x3xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// Without index operands an entry is left as it is.
// CHECK-LABEL: ag.forward @plain
// CHECK-NOT: ag.index_checks
// CHECK-NOT: ag.check_indices
ag.forward @plain(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
  %y = ag.exp %x : tensor<2xf32>
  ag.return %y : tensor<2xf32>
}

// -----

// A training step: the poisons of the checks are summed and added to the
// gradient norm where it is computed, and every use of the norm (here a
// clip-like scale of the gradient) reads the poisoned one, so that a bad
// index makes the norm NaN and refuses the update.
// CHECK-LABEL: ag.train_step @train
// CHECK-DAG: %[[S:.*]], %[[P:.*]] = ag.check_indices %{{.*}} {bound = 5 : i64, op = "ag.cross_entropy"}
// CHECK-DAG: %[[S2:.*]], %[[P2:.*]] = ag.check_indices %{{.*}} {bound = 6 : i64, op = "ag.get_rows"}
// CHECK: %[[SUM:.*]] = ag.add %[[P2]], %[[P]]
// CHECK: %[[NORM:.*]] = ag.sqrt
// CHECK-NEXT: %[[POISONED:.*]] = ag.add %[[NORM]], %[[SUM]]
// CHECK-NEXT: %[[SCALED:.*]] = ag.div %{{.*}}, %[[POISONED]]
// CHECK-NOT: %[[NORM]]
// CHECK: ag.return %{{.*}}, %[[SCALED]], %[[POISONED]], %[[S2]], %[[S]] :
ag.weight @w trainable : tensor<5x3xf32> = #ag.init<zeros>
ag.weight @t trainable : tensor<6x3xf32> = #ag.init<zeros>
ag.train_step @train(%x: tensor<4x3xf32> {ag.name = "x"}, %labels: tensor<4xi32> {ag.name = "labels"}, %ids: tensor<2xi32> {ag.name = "ids"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<5x3xf32> {ag.grad_of = @w, ag.name = "grad/w"}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<5x3xf32>
  %t = ag.read_weight @t : tensor<6x3xf32>
  %r = ag.get_rows %t, %ids : (tensor<6x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %z = ag.matmul %x, %w {transpose_b} : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
  %l = ag.cross_entropy %z, %labels : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  %sq = ag.mul %w, %w : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  %s = ag.sum %sq : tensor<5x3xf32> -> tensor<f32>
  %n = ag.sqrt %s : tensor<f32>
  %scaled = ag.div %w, %n : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
  ag.return %l, %scaled, %n : tensor<f32>, tensor<5x3xf32>, tensor<f32>
}
