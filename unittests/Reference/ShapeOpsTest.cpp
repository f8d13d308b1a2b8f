//===- ShapeOpsTest.cpp - Min/max, clamp and shape ops --------------------===//
//
// minimum, maximum, max, clamp, broadcast_to, reshape, transpose, concat and
// slice against hand-computed values, NaN propagation included.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtils.h"

using namespace mlir;
using namespace capture::reference;
using namespace capture::reference::test;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

/// A module applying `op` (with its operands and attributes, e.g.
/// "max %x axis = 0") to input "x" of `inType`, giving output "y" of
/// `outType`.
std::string moduleOf(StringRef op, StringRef inType, StringRef outType) {
  return (R"mlir(
    ag.forward @f(%x: )mlir" +
          inType + R"mlir( {ag.name = "x"}) -> ()mlir" + outType +
          R"mlir( {ag.name = "y"}) {
      %y = ag.)mlir" +
          op + " : " + inType + " -> " + outType + R"mlir(
      ag.return %y : )mlir" +
          outType + R"mlir(
    })mlir")
      .str();
}

/// A module applying `op` to input "x" of `type`, giving output "y" of the
/// same type (the syntax of ops with one type, e.g. clamp).
std::string sameTypeModule(StringRef op, StringRef type) {
  return (R"mlir(
    ag.forward @f(%x: )mlir" +
          type + R"mlir( {ag.name = "x"}) -> ()mlir" + type +
          R"mlir( {ag.name = "y"}) {
      %y = ag.)mlir" +
          op + " : " + type + R"mlir(
      ag.return %y : )mlir" +
          type + R"mlir(
    })mlir")
      .str();
}

//===----------------------------------------------------------------------===//
// minimum, maximum
//===----------------------------------------------------------------------===//

/// `op` of "a" [2, 3] and the broadcast row "b" [3].
std::string minMaxModule(StringRef op) {
  return (R"mlir(
    ag.forward @f(%a: tensor<2x3xf32> {ag.name = "a"}, %b: tensor<3xf32> {ag.name = "b"})
        -> (tensor<2x3xf32> {ag.name = "y"}) {
      %y = ag.)mlir" +
          op +
          R"mlir( %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      ag.return %y : tensor<2x3xf32>
    })mlir")
      .str();
}

// a = [[1, NaN, -3], [4, 0, 2]], b = [2, -1, NaN]: a NaN on either side
// (first or second operand) makes the result NaN.
const Inputs kMinMaxInputs = {{"a", Tensor::of({2, 3}, {1, kNaN, -3, 4, 0, 2})},
                              {"b", Tensor::of({3}, {2, -1, kNaN})}};

TEST_F(InterpreterTest, MinimumPropagatesNaNAndBroadcasts) {
  expectTensor(output(minMaxModule("minimum"), kMinMaxInputs), {2, 3},
               {1, kNaN, kNaN, 2, -1, kNaN});
  expectTensor(output(minMaxModule("minimum"), kMinMaxInputs, Precision::F32),
               {2, 3}, {1, kNaN, kNaN, 2, -1, kNaN});
}

TEST_F(InterpreterTest, MaximumPropagatesNaNAndBroadcasts) {
  expectTensor(output(minMaxModule("maximum"), kMinMaxInputs), {2, 3},
               {2, kNaN, kNaN, 4, 0, kNaN});
}

TEST_F(InterpreterTest, MinimumAndMaximumOrderSignedZeros) {
  // As the device's minimumf/maximumf: -0 < +0, whichever side it is on.
  Inputs zeros = {{"a", Tensor::of({2, 3}, {0.0, -0.0, 0, 0, 0, 0})},
                  {"b", Tensor::of({3}, {-0.0, 0.0, 0})}};
  Tensor lo = output(minMaxModule("minimum"), zeros);
  Tensor hi = output(minMaxModule("maximum"), zeros);
  ASSERT_EQ(lo.data.size(), 6u);
  ASSERT_EQ(hi.data.size(), 6u);
  EXPECT_TRUE(std::signbit(lo.data[0]) && std::signbit(lo.data[1]));
  EXPECT_TRUE(!std::signbit(hi.data[0]) && !std::signbit(hi.data[1]));
}

//===----------------------------------------------------------------------===//
// max
//===----------------------------------------------------------------------===//

const Inputs kMaxInput = {{"x", Tensor::of({2, 3}, {1, 5, 3, -7, -2, -9})}};

TEST_F(InterpreterTest, MaxOfAllElements) {
  expectTensor(
      output(moduleOf("max %x", "tensor<2x3xf32>", "tensor<f32>"), kMaxInput),
      {}, {5});
  expectTensor(
      output(moduleOf("max %x keepdim", "tensor<2x3xf32>", "tensor<1x1xf32>"),
             kMaxInput, Precision::F32),
      {1, 1}, {5});
}

TEST_F(InterpreterTest, MaxAlongAxes) {
  expectTensor(
      output(moduleOf("max %x axis = 0", "tensor<2x3xf32>", "tensor<3xf32>"),
             kMaxInput),
      {3}, {1, 5, 3});
  expectTensor(
      output(moduleOf("max %x axis = 1", "tensor<2x3xf32>", "tensor<2xf32>"),
             kMaxInput),
      {2}, {5, -2});
  expectTensor(output(moduleOf("max %x axis = -1 keepdim", "tensor<2x3xf32>",
                               "tensor<2x1xf32>"),
                      kMaxInput),
               {2, 1}, {5, -2});
  expectTensor(output(moduleOf("max %x axis = -2 keepdim", "tensor<2x3xf32>",
                               "tensor<1x3xf32>"),
                      kMaxInput),
               {1, 3}, {1, 5, 3});
}

TEST_F(InterpreterTest, MaxAlongMiddleAxisOfRank3) {
  Tensor y = output(
      moduleOf("max %x axis = 1", "tensor<2x3x2xf32>", "tensor<2x2xf32>"),
      {{"x", Tensor::of({2, 3, 2}, {0, 11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1})}});
  expectTensor(y, {2, 2}, {4, 11, 10, 9});
}

TEST_F(InterpreterTest, MaxPropagatesNaN) {
  // A NaN after a larger value and a NaN before one: both win.
  Inputs x = {{"x", Tensor::of({2, 3}, {1, kNaN, 0, kNaN, 5, -1})}};
  expectTensor(
      output(moduleOf("max %x axis = 1", "tensor<2x3xf32>", "tensor<2xf32>"),
             x),
      {2}, {kNaN, kNaN});
  expectTensor(
      output(moduleOf("max %x axis = 0", "tensor<2x3xf32>", "tensor<3xf32>"),
             x),
      {3}, {kNaN, kNaN, 0});
  expectTensor(output(moduleOf("max %x", "tensor<2x3xf32>", "tensor<f32>"), x),
               {}, {kNaN});
}

TEST_F(InterpreterTest, MaxOfNegativeInfinities) {
  expectTensor(output(moduleOf("max %x", "tensor<2xf32>", "tensor<f32>"),
                      {{"x", Tensor::of({2}, {-kInf, -kInf})}}),
               {}, {-kInf});
}

TEST_F(InterpreterTest, MaxWithEmptyOutputIsEmpty) {
  expectTensor(
      output(moduleOf("max %x axis = 1", "tensor<0x3xf32>", "tensor<0xf32>"),
             {{"x", Tensor::of({0, 3}, {})}}),
      {0}, {});
}

TEST_F(InterpreterTest, ErrorMaxOfZeroElements) {
  expectError(moduleOf("max %x axis = 0", "tensor<0x3xf32>", "tensor<3xf32>"),
              "'ag.max' of zero elements (input [0, 3] along axis 0) has no "
              "value; torch.amax refuses it too",
              {{"x", Tensor::of({0, 3}, {})}});
}

//===----------------------------------------------------------------------===//
// clamp
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, ClampKeepsNaN) {
  Inputs x = {{"x", Tensor::of({5}, {-2, 0.5, 3, kNaN, -1})}};
  std::string source =
      sameTypeModule("clamp %x min = -1.0 max = 1.0", "tensor<5xf32>");
  expectTensor(output(source, x), {5}, {-1, 0.5, 1, kNaN, -1});
  expectTensor(output(source, x, Precision::F32), {5}, {-1, 0.5, 1, kNaN, -1});
}

TEST_F(InterpreterTest, ClampBoundsAreFloats) {
  // The bounds are f32 attributes: 0.1 is float(0.1) in both precisions.
  std::string source =
      sameTypeModule("clamp %x min = 0.1 max = 0.3", "tensor<3xf32>");
  Inputs x = {{"x", Tensor::of({3}, {-5, 0.2, 5})}};
  expectTensor(output(source, x), {3}, {f32(0.1), 0.2, f32(0.3)});
}

//===----------------------------------------------------------------------===//
// broadcast_to, reshape
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, BroadcastToRowColumnAndScalar) {
  expectTensor(
      output(moduleOf("broadcast_to %x", "tensor<3xf32>", "tensor<2x3xf32>"),
             {{"x", Tensor::of({3}, {1, 2, 3})}}),
      {2, 3}, {1, 2, 3, 1, 2, 3});
  expectTensor(output(moduleOf("broadcast_to %x", "tensor<2x1xf32>",
                               "tensor<2x2x3xf32>"),
                      {{"x", Tensor::of({2, 1}, {1, 2})}}),
               {2, 2, 3}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  expectTensor(
      output(moduleOf("broadcast_to %x", "tensor<f32>", "tensor<2x2xf32>"),
             {{"x", Tensor::of({}, {7})}}),
      {2, 2}, {7, 7, 7, 7});
}

TEST_F(InterpreterTest, ReshapeKeepsRowMajorOrder) {
  expectTensor(
      output(moduleOf("reshape %x", "tensor<2x3xf32>", "tensor<3x1x2xf32>"),
             {{"x", Tensor::of({2, 3}, {1, 2, 3, 4, 5, 6})}}),
      {3, 1, 2}, {1, 2, 3, 4, 5, 6});
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, TransposeRank2) {
  expectTensor(output(moduleOf("transpose %x permutation = [1, 0]",
                               "tensor<2x3xf32>", "tensor<3x2xf32>"),
                      {{"x", Tensor::of({2, 3}, {1, 2, 3, 4, 5, 6})}}),
               {3, 2}, {1, 4, 2, 5, 3, 6});
}

TEST_F(InterpreterTest, TransposeRank3) {
  // y[k][i][j] = x[i][j][k] = 12 i + 4 j + k.
  std::vector<double> x(24);
  for (int i = 0; i < 24; ++i)
    x[i] = i;
  expectTensor(output(moduleOf("transpose %x permutation = [2, 0, 1]",
                               "tensor<2x3x4xf32>", "tensor<4x2x3xf32>"),
                      {{"x", Tensor::of({2, 3, 4}, x)}}),
               {4, 2, 3}, {0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                           2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
}

TEST_F(InterpreterTest, TransposeRank3IsNotTheInversePermutation) {
  // On a cube the shapes cannot tell [2, 0, 1] from its inverse [1, 2, 0]:
  // y[a][b][c] = x[b][c][a] = 4 b + 2 c + a.
  expectTensor(output(moduleOf("transpose %x permutation = [2, 0, 1]",
                               "tensor<2x2x2xf32>", "tensor<2x2x2xf32>"),
                      {{"x", Tensor::of({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})}}),
               {2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7});
}

//===----------------------------------------------------------------------===//
// concat
//===----------------------------------------------------------------------===//

/// Concatenates a, b and c of the given types along `axis`.
std::string concatModule(StringRef axis, StringRef a, StringRef b, StringRef c,
                         StringRef out) {
  return (R"mlir(
    ag.forward @f(%a: )mlir" +
          a + R"mlir( {ag.name = "a"}, %b: )mlir" + b +
          R"mlir( {ag.name = "b"}, %c: )mlir" + c +
          R"mlir( {ag.name = "c"}) -> ()mlir" + out +
          R"mlir( {ag.name = "y"}) {
      %y = ag.concat %a, %b, %c axis = )mlir" +
          axis + " : (" + a + ", " + b + ", " + c + ") -> " + out + R"mlir(
      ag.return %y : )mlir" +
          out + R"mlir(
    })mlir")
      .str();
}

TEST_F(InterpreterTest, ConcatThreeInputsAlongLastAxis) {
  Inputs inputs = {{"a", Tensor::of({2, 1}, {1, 2})},
                   {"b", Tensor::of({2, 2}, {3, 4, 5, 6})},
                   {"c", Tensor::of({2, 3}, {7, 8, 9, 10, 11, 12})}};
  std::vector<double> expected = {1, 3, 4, 7, 8, 9, 2, 5, 6, 10, 11, 12};
  for (StringRef axis : {"1", "-1"})
    expectTensor(output(concatModule(axis, "tensor<2x1xf32>", "tensor<2x2xf32>",
                                     "tensor<2x3xf32>", "tensor<2x6xf32>"),
                        inputs),
                 {2, 6}, expected);
}

TEST_F(InterpreterTest, ConcatThreeInputsAlongFirstAxis) {
  expectTensor(output(concatModule("0", "tensor<1x2xf32>", "tensor<2x2xf32>",
                                   "tensor<1x2xf32>", "tensor<4x2xf32>"),
                      {{"a", Tensor::of({1, 2}, {1, 2})},
                       {"b", Tensor::of({2, 2}, {3, 4, 5, 6})},
                       {"c", Tensor::of({1, 2}, {7, 8})}}),
               {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
}

TEST_F(InterpreterTest, ConcatAlongMiddleAxisOfRank3) {
  expectTensor(
      output(concatModule("1", "tensor<2x1x2xf32>", "tensor<2x2x2xf32>",
                          "tensor<2x1x2xf32>", "tensor<2x4x2xf32>"),
             {{"a", Tensor::of({2, 1, 2}, {1, 2, 3, 4})},
              {"b", Tensor::of({2, 2, 2}, {5, 6, 7, 8, 9, 10, 11, 12})},
              {"c", Tensor::of({2, 1, 2}, {13, 14, 15, 16})}}),
      {2, 4, 2}, {1, 2, 5, 6, 7, 8, 13, 14, 3, 4, 9, 10, 11, 12, 15, 16});
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, SliceAlongEachAxis) {
  Inputs x = {{"x", Tensor::of({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7})}};
  expectTensor(output(moduleOf("slice %x axis = -1 start = 1 end = 3",
                               "tensor<2x4xf32>", "tensor<2x2xf32>"),
                      x),
               {2, 2}, {1, 2, 5, 6});
  expectTensor(output(moduleOf("slice %x axis = 0 start = 1 end = 2",
                               "tensor<2x4xf32>", "tensor<1x4xf32>"),
                      x),
               {1, 4}, {4, 5, 6, 7});
}

TEST_F(InterpreterTest, SliceAlongMiddleAxisOfRank3) {
  std::vector<double> x(12);
  for (int i = 0; i < 12; ++i)
    x[i] = i;
  expectTensor(output(moduleOf("slice %x axis = 1 start = 1 end = 3",
                               "tensor<2x3x2xf32>", "tensor<2x2x2xf32>"),
                      {{"x", Tensor::of({2, 3, 2}, x)}}),
               {2, 2, 2}, {2, 3, 4, 5, 8, 9, 10, 11});
}

} // namespace
