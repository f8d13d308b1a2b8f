//===- SoftmaxLossTest.cpp - Softmax, losses, lookups and i32 inputs ------===//
//
// softmax, log_softmax, cross_entropy, mse and get_rows against
// hand-computed values; i32 inputs; the errors for invalid labels/indices.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtils.h"

using namespace mlir;
using namespace capture::reference;
using namespace capture::reference::test;

namespace {

/// `op` along `axis` of input "x" of `type`, giving output "y".
std::string softmaxModule(StringRef op, StringRef axis, StringRef type) {
  return (R"mlir(
    ag.forward @f(%x: )mlir" +
          type + R"mlir( {ag.name = "x"}) -> ()mlir" + type +
          R"mlir( {ag.name = "y"}) {
      %y = ag.)mlir" +
          op + " %x axis = " + axis + " : " + type + R"mlir(
      ag.return %y : )mlir" +
          type + R"mlir(
    })mlir")
      .str();
}

/// Row sums of a [rows, n] tensor.
std::vector<double> rowSums(const Tensor &t) {
  std::vector<double> sums;
  if (t.shape.size() != 2)
    return sums;
  for (int64_t r = 0; r < t.shape[0]; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < t.shape[1]; ++c)
      sum += t.data[r * t.shape[1] + c];
    sums.push_back(sum);
  }
  return sums;
}

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

// Rows: small logits, large equal logits, and large spread logits (a naive
// exp(1000) overflows to inf and gives NaN).
const Inputs kSoftmaxInput = {
    {"x", Tensor::of({3, 3}, {1, 2, 3, 1000, 1000, 1000, 1000, 0, -1000})}};

TEST_F(InterpreterTest, SoftmaxOfRowsIsStable) {
  double z = 1 + std::exp(-1.0) + std::exp(-2.0);
  Tensor y =
      output(softmaxModule("softmax", "1", "tensor<3x3xf32>"), kSoftmaxInput);
  expectNear(y, {3, 3},
             {std::exp(-2.0) / z, std::exp(-1.0) / z, 1 / z, 1.0 / 3, 1.0 / 3,
              1.0 / 3, 1, 0, 0},
             1e-15);
  for (double sum : rowSums(y))
    EXPECT_NEAR(sum, 1.0, 1e-15);
}

TEST_F(InterpreterTest, SoftmaxInF32SumsToOneAndIsFloat) {
  Tensor y = output(softmaxModule("softmax", "-1", "tensor<3x3xf32>"),
                    kSoftmaxInput, Precision::F32);
  std::vector<double> sums = rowSums(y);
  ASSERT_EQ(sums.size(), 3u);
  for (double sum : sums)
    EXPECT_NEAR(sum, 1.0, 1e-6);
  for (double v : y.data)
    EXPECT_EQ(v, f32(v));
  double z = 1 + std::exp(-1.0) + std::exp(-2.0);
  EXPECT_NEAR(y.data[2], 1 / z, 1e-7);
}

TEST_F(InterpreterTest, SoftmaxAlongFirstAxis) {
  // Columns: [0, 0] -> [1/2, 1/2]; [2, 0] -> [e^2, 1] / (e^2 + 1).
  double z = std::exp(2.0) + 1;
  expectNear(output(softmaxModule("softmax", "0", "tensor<2x2xf32>"),
                    {{"x", Tensor::of({2, 2}, {0, 2, 0, 0})}}),
             {2, 2}, {0.5, std::exp(2.0) / z, 0.5, 1 / z}, 1e-15);
}

TEST_F(InterpreterTest, SoftmaxNaNSpoilsOnlyItsRow) {
  expectNear(output(softmaxModule("softmax", "1", "tensor<2x2xf32>"),
                    {{"x", Tensor::of({2, 2}, {kNaN, 1, 3, 3})}}),
             {2, 2}, {kNaN, kNaN, 0.5, 0.5}, 0);
}

TEST_F(InterpreterTest, LogSoftmaxIsLogOfSoftmax) {
  Inputs x = {{"x", Tensor::of({2, 3}, {1, 2, 3, 0.5, -1, 2})}};
  Tensor soft = output(softmaxModule("softmax", "1", "tensor<2x3xf32>"), x);
  Tensor logSoft =
      output(softmaxModule("log_softmax", "-1", "tensor<2x3xf32>"), x);
  ASSERT_EQ(soft.data.size(), 6u);
  ASSERT_EQ(logSoft.data.size(), 6u);
  for (size_t i = 0; i < 6; ++i)
    EXPECT_NEAR(logSoft.data[i], std::log(soft.data[i]), 1e-14) << i;
  // Hand value: log_softmax([1, 2, 3])[2] = -log(1 + e^-1 + e^-2).
  EXPECT_NEAR(logSoft.data[2], -0.40760596444438, 1e-13);
}

TEST_F(InterpreterTest, LogSoftmaxStaysFiniteWhereSoftmaxUnderflows) {
  // log(softmax) would be log(0) = -inf for the last two elements.
  expectTensor(output(softmaxModule("log_softmax", "1", "tensor<1x3xf32>"),
                      {{"x", Tensor::of({1, 3}, {1000, 0, -1000})}},
                      Precision::F32),
               {1, 3}, {0, -1000, -2000});
}

TEST_F(InterpreterTest, LogSoftmaxAlongMiddleAxisOfRank3) {
  // Pairs along axis 1: [0, ln 3] -> [ln 1/4, ln 3/4].
  double l3 = std::log(3.0);
  expectNear(output(softmaxModule("log_softmax", "-2", "tensor<1x2x2xf32>"),
                    {{"x", Tensor::of({1, 2, 2}, {0, l3, l3, 0})}}),
             {1, 2, 2},
             {std::log(0.25), std::log(0.75), std::log(0.75), std::log(0.25)},
             1e-15);
}

//===----------------------------------------------------------------------===//
// cross_entropy
//===----------------------------------------------------------------------===//

/// Cross-entropy of logits [B, C] and labels [B] into output "y", plus the
/// log_softmax of the logits as output "lsm".
std::string crossEntropyModule(int64_t batch, int64_t classes) {
  std::string logits = "tensor<" + std::to_string(batch) + "x" +
                       std::to_string(classes) + "xf32>";
  std::string labels = "tensor<" + std::to_string(batch) + "xi32>";
  return R"mlir(
    ag.forward @f(%logits: )mlir" +
         logits + R"mlir( {ag.name = "logits"}, %labels: )mlir" + labels +
         R"mlir( {ag.name = "labels"})
        -> (tensor<f32> {ag.name = "y"}, )mlir" +
         logits + R"mlir( {ag.name = "lsm"}) {
      %y = ag.cross_entropy %logits, %labels : ()mlir" +
         logits + ", " + labels + R"mlir() -> tensor<f32>
      %lsm = ag.log_softmax %logits axis = 1 : )mlir" +
         logits + R"mlir(
      ag.return %y, %lsm : tensor<f32>, )mlir" +
         logits + R"mlir(
    })mlir";
}

TEST_F(InterpreterTest, CrossEntropyByHand) {
  // Row 0: log(e + e^2 + e^3) - 3 = log(1 + e^-1 + e^-2) = 0.40760596...
  // Row 1: logsumexp = 1000 (stable: a naive exp(1000) overflows), minus
  // the logit 0 of label 1. Row 2: label 0 of [1, 2, 3]: 2.40760596...
  Inputs inputs = {
      {"logits", Tensor::of({3, 3}, {1, 2, 3, 1000, 0, -1000, 1, 2, 3})},
      {"labels", Tensor::of({3}, {2, 1, 0})}};
  double row0 = std::log(1 + std::exp(-1.0) + std::exp(-2.0));
  double expected = (row0 + 1000 + (row0 + 2)) / 3;
  EXPECT_NEAR(expected, 334.2717373, 1e-6);
  expectNear(output(crossEntropyModule(3, 3), inputs), {}, {expected}, 1e-12);
  Tensor y32 = output(crossEntropyModule(3, 3), inputs, Precision::F32);
  expectNear(y32, {}, {expected}, 1e-4);
  ASSERT_EQ(y32.data.size(), 1u);
  EXPECT_EQ(y32.data[0], f32(y32.data[0]));
}

TEST_F(InterpreterTest, CrossEntropyIsMeanOfNegatedLogSoftmax) {
  Inputs inputs = {
      {"logits", Tensor::of({4, 3}, {0.3, -1.2, 2.5, 0.0, 0.7, -0.4, 5.0, 5.0,
                                     -3.0, 1.1, 0.2, 0.9})},
      {"labels", Tensor::of({4}, {0, 2, 1, 1})}};
  FailureOr<EvalResult> result =
      run(crossEntropyModule(4, 3), inputs, EvalOptions{Precision::F64, {}});
  ASSERT_TRUE(succeeded(result)) << errors;
  const Tensor &lsm = result->outputs.at("lsm");
  ASSERT_EQ(lsm.data.size(), 12u);
  double expected =
      -(lsm.data[0] + lsm.data[5] + lsm.data[7] + lsm.data[10]) / 4;
  expectNear(result->outputs.at("y"), {}, {expected}, 1e-14);
}

TEST_F(InterpreterTest, ErrorCrossEntropyLabelTooLarge) {
  expectError(crossEntropyModule(2, 3),
              "'ag.cross_entropy' label 3 at position 1 is out of range: "
              "labels must lie in [0, 3) (logits [2, 3] have 3 classes)",
              {{"logits", Tensor::filled({2, 3}, 0.0)},
               {"labels", Tensor::of({2}, {2, 3})}});
}

TEST_F(InterpreterTest, ErrorCrossEntropyNegativeLabel) {
  expectError(crossEntropyModule(2, 3),
              "'ag.cross_entropy' label -1 at position 0 is out of range",
              {{"logits", Tensor::filled({2, 3}, 0.0)},
               {"labels", Tensor::of({2}, {-1, 0})}});
  expectError(crossEntropyModule(2, 3),
              "label -100 at position 1 is out of range: labels must lie in "
              "[0, 3) (logits [2, 3] have 3 classes); ag.cross_entropy has "
              "no ignore_index",
              {{"logits", Tensor::filled({2, 3}, 0.0)},
               {"labels", Tensor::of({2}, {0, -100})}});
}

//===----------------------------------------------------------------------===//
// mse
//===----------------------------------------------------------------------===//

const char *kMseModule = R"mlir(
  ag.forward @f(%a: tensor<2x2xf32> {ag.name = "a"}, %b: tensor<2x2xf32> {ag.name = "b"})
      -> (tensor<f32> {ag.name = "y"}) {
    %y = ag.mse %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<f32>
    ag.return %y : tensor<f32>
  })mlir";

TEST_F(InterpreterTest, MseByHand) {
  // Differences 0, 2, -2, 3: squares 0, 4, 4, 9; mean 17 / 4.
  Inputs inputs = {{"a", Tensor::of({2, 2}, {1, 2, 3, 4})},
                   {"b", Tensor::of({2, 2}, {1, 0, 5, 1})}};
  expectTensor(output(kMseModule, inputs), {}, {4.25});
  expectTensor(output(kMseModule, inputs, Precision::F32), {}, {4.25});
}

TEST_F(InterpreterTest, MseRoundsInF32) {
  // Differences 4096, 1, 1, 1: squares 2^24, 1, 1, 1. Accumulated in float,
  // each + 1 rounds back to 2^24 (ties to even); in double the sum is exact.
  Inputs inputs = {{"a", Tensor::of({2, 2}, {4097, 2, 3, 4})},
                   {"b", Tensor::of({2, 2}, {1, 1, 2, 3})}};
  expectTensor(output(kMseModule, inputs, Precision::F32), {}, {4194304});
  expectTensor(output(kMseModule, inputs, Precision::F64), {}, {4194304.75});
}

//===----------------------------------------------------------------------===//
// get_rows
//===----------------------------------------------------------------------===//

/// Rows of the table weight [3, 2] = [[1, 2], [3, 4], [5, 6]] picked by
/// input "ids" of `count` indices.
std::string getRowsModule(int64_t count) {
  std::string ids = "tensor<" + std::to_string(count) + "xi32>";
  std::string out = "tensor<" + std::to_string(count) + "x2xf32>";
  return R"mlir(
    ag.weight @table : tensor<3x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]>
    ag.forward @f(%ids: )mlir" +
         ids + R"mlir( {ag.name = "ids"}) -> ()mlir" + out +
         R"mlir( {ag.name = "y"}) {
      %t = ag.read_weight @table : tensor<3x2xf32>
      %y = ag.get_rows %t, %ids : (tensor<3x2xf32>, )mlir" +
         ids + ") -> " + out + R"mlir(
      ag.return %y : )mlir" +
         out + R"mlir(
    })mlir";
}

TEST_F(InterpreterTest, GetRowsWithRepeatedIndices) {
  expectTensor(output(getRowsModule(4),
                      {{"ids", Tensor::of({4}, {2, 0, 2, 1})}}, Precision::F32),
               {4, 2}, {5, 6, 1, 2, 5, 6, 3, 4});
}

TEST_F(InterpreterTest, GetRowsOfNoIndices) {
  expectTensor(output(getRowsModule(0), {{"ids", Tensor::of({0}, {})}}), {0, 2},
               {});
}

TEST_F(InterpreterTest, ErrorGetRowsIndexTooLarge) {
  expectError(getRowsModule(3),
              "'ag.get_rows' index 3 at position 2 is out of range: "
              "indices must lie in [0, 3) (the table [3, 2] has 3 rows)",
              {{"ids", Tensor::of({3}, {0, 1, 3})}});
}

TEST_F(InterpreterTest, ErrorGetRowsNegativeIndex) {
  expectError(getRowsModule(2),
              "'ag.get_rows' index -2147483648 at position 0 is out of range",
              {{"ids", Tensor::of({2}, {-2147483648.0, 1})}});
}

//===----------------------------------------------------------------------===//
// i32 inputs
//===----------------------------------------------------------------------===//

const char *kI32PassThrough = R"mlir(
  ag.forward @f(%ids: tensor<3xi32> {ag.name = "ids"}) -> (tensor<3xi32> {ag.name = "y"}) {
    ag.return %ids : tensor<3xi32>
  })mlir";

TEST_F(InterpreterTest, I32InputsStayExactInF32) {
  // 16777217 = 2^24 + 1 is not a float; an index must not be rounded.
  expectTensor(
      output(kI32PassThrough,
             {{"ids", Tensor::of({3}, {16777217, -2147483648.0, 2147483647})}},
             Precision::F32),
      {3}, {16777217, -2147483648.0, 2147483647});
}

TEST_F(InterpreterTest, ErrorI32InputNotAnInteger) {
  expectError(kI32PassThrough,
              "input 'ids' is i32, but its value 1.5 at position 1 is not a "
              "32-bit integer",
              {{"ids", Tensor::of({3}, {0, 1.5, 2})}});
}

TEST_F(InterpreterTest, ErrorI32InputOutOfRange) {
  expectError(kI32PassThrough,
              "input 'ids' is i32, but its value 2147483648 at position 2 is "
              "not a 32-bit integer",
              {{"ids", Tensor::of({3}, {0, 1, 2147483648.0})}});
  expectError(kI32PassThrough,
              "input 'ids' is i32, but its value nan at position 0",
              {{"ids", Tensor::of({3}, {kNaN, 1, 2})}});
}

} // namespace
