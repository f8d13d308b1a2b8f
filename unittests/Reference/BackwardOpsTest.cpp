//===- BackwardOpsTest.cpp - Backward-pass ops and train_step entries -----===//
//
// ag.compare, ag.one_hot and ag.scatter_add_rows (the ops ag-autodiff
// emits) in both precisions, and ag.train_step entries as evaluation
// targets.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtils.h"

using namespace capture::reference;
using namespace capture::reference::test;

namespace {

//===----------------------------------------------------------------------===//
// ag.compare
//===----------------------------------------------------------------------===//

/// A module comparing a [4] input with a [] input by `predicate`.
std::string compareModule(StringRef predicate) {
  return (R"mlir(
    ag.forward @f(%a: tensor<4xf32> {ag.name = "a"}, %b: tensor<f32> {ag.name = "b"})
        -> (tensor<4xf32> {ag.name = "y"}) {
      %m = ag.compare )mlir" +
          predicate +
          R"mlir(, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      ag.return %m : tensor<4xf32>
    })mlir")
      .str();
}

TEST_F(InterpreterTest, CompareEveryPredicateWithNaN) {
  // a = [-1, 0, 1, NaN] against b = 0: NaN compares false except for ne.
  Inputs inputs = {{"a", Tensor::of({4}, {-1, 0, 1, kNaN})},
                   {"b", Tensor::of({}, {0})}};
  struct Expected {
    const char *predicate;
    std::vector<double> values;
  };
  for (const Expected &e :
       {Expected{"eq", {0, 1, 0, 0}}, Expected{"ne", {1, 0, 1, 1}},
        Expected{"lt", {1, 0, 0, 0}}, Expected{"le", {1, 1, 0, 0}},
        Expected{"gt", {0, 0, 1, 0}}, Expected{"ge", {0, 1, 1, 0}}}) {
    for (Precision precision : {Precision::F32, Precision::F64}) {
      SCOPED_TRACE(e.predicate);
      expectTensor(output(compareModule(e.predicate), inputs, precision), {4},
                   e.values);
    }
  }
}

TEST_F(InterpreterTest, CompareNaNOnTheRightAndBothSides) {
  Inputs inputs = {{"a", Tensor::of({4}, {-1, 0, 1, kNaN})},
                   {"b", Tensor::of({}, {kNaN})}};
  expectTensor(output(compareModule("eq"), inputs), {4}, {0, 0, 0, 0});
  expectTensor(output(compareModule("ne"), inputs), {4}, {1, 1, 1, 1});
  expectTensor(output(compareModule("ge"), inputs), {4}, {0, 0, 0, 0});
}

TEST_F(InterpreterTest, CompareBroadcastsBothWays) {
  const char *source = R"mlir(
    ag.forward @f(%a: tensor<2x1xf32> {ag.name = "a"}, %b: tensor<3xf32> {ag.name = "b"})
        -> (tensor<2x3xf32> {ag.name = "y"}) {
      %m = ag.compare le, %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      ag.return %m : tensor<2x3xf32>
    })mlir";
  Inputs inputs = {{"a", Tensor::of({2, 1}, {0, 2})},
                   {"b", Tensor::of({3}, {-1, 1, 2})}};
  for (Precision precision : {Precision::F32, Precision::F64})
    expectTensor(output(source, inputs, precision), {2, 3}, {0, 1, 1, 0, 0, 1});
}

TEST_F(InterpreterTest, CompareSeesF32Rounding) {
  // 1 + 2^-30 rounds to 1 as a float: equal in F32, different in F64.
  Inputs inputs = {{"a", Tensor::of({4}, {1 + 0x1p-30, 0, 0, 0})},
                   {"b", Tensor::of({}, {1})}};
  expectTensor(output(compareModule("eq"), inputs, Precision::F32), {4},
               {1, 0, 0, 0});
  expectTensor(output(compareModule("eq"), inputs, Precision::F64), {4},
               {0, 0, 0, 0});
}

//===----------------------------------------------------------------------===//
// ag.one_hot
//===----------------------------------------------------------------------===//

const char *kOneHotModule = R"mlir(
  ag.forward @f(%l: tensor<4xi32> {ag.name = "labels"}) -> (tensor<4x3xf32> {ag.name = "y"}) {
    %h = ag.one_hot %l : tensor<4xi32> -> tensor<4x3xf32>
    ag.return %h : tensor<4x3xf32>
  })mlir";

TEST_F(InterpreterTest, OneHot) {
  Inputs inputs = {{"labels", Tensor::of({4}, {2, 0, 0, 1})}};
  for (Precision precision : {Precision::F32, Precision::F64})
    expectTensor(output(kOneHotModule, inputs, precision), {4, 3},
                 {0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 0});
}

TEST_F(InterpreterTest, ErrorOneHotLabelOutOfRange) {
  expectError(kOneHotModule,
              "'ag.one_hot' label 3 at position 2 is out of range: labels "
              "must lie in [0, 3) (the result [4, 3] has 3 classes)",
              {{"labels", Tensor::of({4}, {2, 0, 3, 1})}});
  expectError(kOneHotModule,
              "'ag.one_hot' label -1 at position 0 is out of range",
              {{"labels", Tensor::of({4}, {-1, 0, 0, 1})}});
}

//===----------------------------------------------------------------------===//
// ag.scatter_add_rows
//===----------------------------------------------------------------------===//

const char *kScatterModule = R"mlir(
  ag.forward @f(%u: tensor<4x2xf32> {ag.name = "updates"}, %i: tensor<4xi32> {ag.name = "ids"})
      -> (tensor<3x2xf32> {ag.name = "y"}) {
    %g = ag.scatter_add_rows %u, %i : (tensor<4x2xf32>, tensor<4xi32>) -> tensor<3x2xf32>
    ag.return %g : tensor<3x2xf32>
  })mlir";

TEST_F(InterpreterTest, ScatterAddRowsAccumulatesRepeatedIndices) {
  // Rows 0 and 2 of the updates go to row 2; row 1 of the result gets
  // nothing and stays zero.
  Inputs inputs = {
      {"updates", Tensor::of({4, 2}, {1, 2, 10, 20, 100, 200, 1000, 2000})},
      {"ids", Tensor::of({4}, {2, 0, 2, 2})}};
  for (Precision precision : {Precision::F32, Precision::F64})
    expectTensor(output(kScatterModule, inputs, precision), {3, 2},
                 {10, 20, 0, 0, 1101, 2202});
}

TEST_F(InterpreterTest, ScatterAddRowsAddsInIndexOrderInF32) {
  // 2^24 + 1 + 1 + 1 in order: every +1 rounds back to 2^24 in float (ties
  // to even); in double the sum is exact.
  Inputs inputs = {
      {"updates", Tensor::of({4, 2}, {0x1p24, 0, 1, 0, 1, 0, 1, 0})},
      {"ids", Tensor::of({4}, {1, 1, 1, 1})}};
  expectTensor(output(kScatterModule, inputs, Precision::F32), {3, 2},
               {0, 0, 0x1p24, 0, 0, 0});
  expectTensor(output(kScatterModule, inputs, Precision::F64), {3, 2},
               {0, 0, 0x1p24 + 3, 0, 0, 0});
}

TEST_F(InterpreterTest, ScatterAddRowsPropagatesNaN) {
  Inputs inputs = {{"updates", Tensor::of({4, 2}, {kNaN, 1, 1, 1, 1, 1, 1, 1})},
                   {"ids", Tensor::of({4}, {0, 0, 1, 2})}};
  expectTensor(output(kScatterModule, inputs), {3, 2}, {kNaN, 2, 1, 1, 1, 1});
}

TEST_F(InterpreterTest, ErrorScatterAddRowsIndexOutOfRange) {
  Tensor updates = Tensor::filled({4, 2}, 1.0);
  expectError(kScatterModule,
              "'ag.scatter_add_rows' index 3 at position 1 is out of range: "
              "indices must lie in [0, 3) (the result [3, 2] has 3 rows)",
              {{"updates", updates}, {"ids", Tensor::of({4}, {0, 3, 1, 2})}});
  expectError(kScatterModule,
              "'ag.scatter_add_rows' index -5 at position 3 is out of range",
              {{"updates", updates}, {"ids", Tensor::of({4}, {0, 1, 1, -5})}});
}

//===----------------------------------------------------------------------===//
// ag.train_step entries
//===----------------------------------------------------------------------===//

const char *kTrainModule = R"mlir(
  ag.weight @w trainable : tensor<3xf32>
  ag.forward @predict(%x: tensor<3xf32> {ag.name = "x"}) -> (tensor<3xf32> {ag.name = "y"}) {
    ag.return %x : tensor<3xf32>
  }
  ag.train_step @train(%x: tensor<3xf32> {ag.name = "x"})
      -> (tensor<f32> {ag.name = "loss"}, tensor<3xf32> {ag.name = "pred"})
      attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9,
                    beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
    %w = ag.read_weight @w : tensor<3xf32>
    %p = ag.mul %w, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %loss = ag.sum %p : tensor<3xf32> -> tensor<f32>
    ag.return %loss, %p : tensor<f32>, tensor<3xf32>
  })mlir";

TEST_F(InterpreterTest, EvaluatesTrainStep) {
  EvalOptions options;
  options.weights["w"] = Tensor::of({3}, {1, 2, 3});
  FailureOr<EvalResult> result =
      run(kTrainModule, {{"x", Tensor::of({3}, {4, 5, 6})}}, options, "train");
  ASSERT_TRUE(succeeded(result)) << errors;
  expectTensor(result->outputs.at("loss"), {}, {32});
  expectTensor(result->outputs.at("pred"), {3}, {4, 10, 18});
  FailureOr<Entry> entry = lookupEntry(*module, "train");
  ASSERT_TRUE(succeeded(entry));
  EXPECT_EQ(entry->getKindName(), "ag.train_step");
  EXPECT_EQ(entry->getOutputName(1), "pred");
}

TEST_F(InterpreterTest, TrainStepIsTheOnlyEntry) {
  const char *source = R"mlir(
    ag.train_step @t() -> (tensor<f32> {ag.name = "loss"})
        attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9,
                      beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
      %c = ag.constant dense<2.5> : tensor<f32>
      ag.return %c : tensor<f32>
    })mlir";
  expectTensor(output(source, {}, Precision::F32, "loss"), {}, {2.5});
}

TEST_F(InterpreterTest, ErrorUnknownEntryListsBothKinds) {
  expectError(kTrainModule,
              "unknown entry @nope; the module's entries are @predict "
              "(ag.forward), @train (ag.train_step)",
              {}, {}, "nope");
  expectError(kTrainModule,
              "the module has 2 entries (@predict (ag.forward), @train "
              "(ag.train_step)); name the one to evaluate");
}

TEST_F(InterpreterTest, ErrorTrainStepMissingInput) {
  expectError(kTrainModule, "missing input 'x' (shape [3]) of entry @train", {},
              {}, "train");
}

} // namespace
