//===- InterpreterTest.cpp - Tests of the reference interpreter -----------===//
//
// Each op against hand-computed values, weights and uploads, and the two
// precisions (the errors are in InterpreterErrorsTest.cpp). Modules are
// parsed from MLIR text so that the tests read like the traces the
// interpreter sees.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtils.h"

#include "capture/rt/initializer.h"

using namespace mlir;
using namespace capture::reference;
using namespace capture::reference::test;

namespace {

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

TEST(TensorTest, Helpers) {
  EXPECT_EQ(Tensor::numElements({}), 1);
  EXPECT_EQ(Tensor::numElements({2, 3, 4}), 24);
  EXPECT_EQ(Tensor::numElements({2, 0}), 0);
  Tensor t = Tensor::filled({2, 2}, 1.5);
  EXPECT_EQ(t.numElements(), 4);
  expectTensor(t, {2, 2}, {1.5, 1.5, 1.5, 1.5});
  expectTensor(Tensor::of({3}, {1, 2, 3}), {3}, {1, 2, 3});
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops with broadcasting
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, AddBroadcastsRowVector) {
  Tensor y = output(R"mlir(
    ag.forward @f(%a: tensor<2x3xf32> {ag.name = "a"}, %b: tensor<3xf32> {ag.name = "b"})
        -> (tensor<2x3xf32> {ag.name = "y"}) {
      %y = ag.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      ag.return %y : tensor<2x3xf32>
    })mlir",
                    {{"a", Tensor::of({2, 3}, {1, 2, 3, 4, 5, 6})},
                     {"b", Tensor::of({3}, {10, 20, 30})}});
  expectTensor(y, {2, 3}, {11, 22, 33, 14, 25, 36});
}

TEST_F(InterpreterTest, MulBroadcastsBothOperands) {
  // [2, 1] x [1, 3]: each operand is broadcast along a different axis.
  Tensor y = output(R"mlir(
    ag.forward @f(%a: tensor<2x1xf32> {ag.name = "a"}, %b: tensor<1x3xf32> {ag.name = "b"})
        -> (tensor<2x3xf32> {ag.name = "y"}) {
      %y = ag.mul %a, %b : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
      ag.return %y : tensor<2x3xf32>
    })mlir",
                    {{"a", Tensor::of({2, 1}, {2, 3})},
                     {"b", Tensor::of({1, 3}, {1, 10, 100})}});
  expectTensor(y, {2, 3}, {2, 20, 200, 3, 30, 300});
}

TEST_F(InterpreterTest, SubBroadcastsLowerRankLhs) {
  // The lhs has the lower rank: operand order must survive broadcasting.
  Tensor y = output(R"mlir(
    ag.forward @f(%a: tensor<3xf32> {ag.name = "a"}, %b: tensor<2x1xf32> {ag.name = "b"})
        -> (tensor<2x3xf32> {ag.name = "y"}) {
      %y = ag.sub %a, %b : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
      ag.return %y : tensor<2x3xf32>
    })mlir",
                    {{"a", Tensor::of({3}, {1, 2, 3})},
                     {"b", Tensor::of({2, 1}, {10, 100})}});
  expectTensor(y, {2, 3}, {-9, -8, -7, -99, -98, -97});
}

TEST_F(InterpreterTest, DivByScalarAndScalarByTensor) {
  FailureOr<EvalResult> result = run(R"mlir(
    ag.forward @f(%a: tensor<2x2xf32> {ag.name = "a"})
        -> (tensor<2x2xf32> {ag.name = "y"}, tensor<2x2xf32> {ag.name = "z"}) {
      %c = ag.constant dense<2.0> : tensor<f32>
      %y = ag.div %a, %c : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
      %z = ag.div %c, %a : (tensor<f32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      ag.return %y, %z : tensor<2x2xf32>, tensor<2x2xf32>
    })mlir",
                                     {{"a", Tensor::of({2, 2}, {1, 2, 4, 0})}});
  ASSERT_TRUE(succeeded(result)) << errors;
  expectTensor(result->outputs.at("y"), {2, 2}, {0.5, 1, 2, 0});
  expectTensor(result->outputs.at("z"), {2, 2},
               {2, 1, 0.5, std::numeric_limits<double>::infinity()});
}

TEST_F(InterpreterTest, BroadcastsMiddleAxisOfRank3) {
  Tensor y = output(R"mlir(
    ag.forward @f(%a: tensor<2x2x2xf32> {ag.name = "a"}, %b: tensor<2x1x2xf32> {ag.name = "b"})
        -> (tensor<2x2x2xf32> {ag.name = "y"}) {
      %y = ag.add %a, %b : (tensor<2x2x2xf32>, tensor<2x1x2xf32>) -> tensor<2x2x2xf32>
      ag.return %y : tensor<2x2x2xf32>
    })mlir",
                    {{"a", Tensor::of({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})},
                     {"b", Tensor::of({2, 1, 2}, {10, 20, 30, 40})}});
  expectTensor(y, {2, 2, 2}, {10, 21, 12, 23, 34, 45, 36, 47});
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

/// A module applying `op` to a 4-element input "x" with output "y".
std::string unaryModule(StringRef op) {
  return (R"mlir(
    ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
      %y = ag.)mlir" +
          op + R"mlir( %x : tensor<4xf32>
      ag.return %y : tensor<4xf32>
    })mlir")
      .str();
}

TEST_F(InterpreterTest, SimpleUnaryOps) {
  Inputs x = {{"x", Tensor::of({4}, {-2, 0, 1, 4})}};
  expectTensor(output(unaryModule("neg"), x), {4}, {2, 0, -1, -4});
  expectTensor(output(unaryModule("square"), x), {4}, {4, 0, 1, 16});
  expectTensor(output(unaryModule("stop_gradient"), x), {4}, {-2, 0, 1, 4});
  expectTensor(output(unaryModule("exp"), x), {4},
               {std::exp(-2.0), 1, std::exp(1.0), std::exp(4.0)});
  expectTensor(output(unaryModule("sqrt"), x), {4}, {kNaN, 0, 1, 2});
  expectTensor(
      output(unaryModule("log"), x), {4},
      {kNaN, -std::numeric_limits<double>::infinity(), 0, std::log(4.0)});
}

TEST_F(InterpreterTest, UnaryOpsRoundToFloatInF32) {
  Inputs x = {{"x", Tensor::of({4}, {-2, 0, 1, 4})}};
  expectTensor(
      output(unaryModule("exp"), x, Precision::F32), {4},
      {f32(std::exp(-2.0)), 1, f32(std::exp(1.0)), f32(std::exp(4.0))});
}

TEST_F(InterpreterTest, ReluPassesNaNThrough) {
  Tensor y = output(unaryModule("relu"),
                    {{"x", Tensor::of({4}, {-1.5, 0, 2.5, kNaN})}});
  expectTensor(y, {4}, {0, 0, 2.5, kNaN});
}

TEST_F(InterpreterTest, FloorAndCeilRoundTowardInfinities) {
  // Halves go down (floor) or up (ceil), never to even; ceil(-0.5) is -0;
  // NaN and infinities pass through.
  const double inf = std::numeric_limits<double>::infinity();
  Inputs x = {{"x", Tensor::of({4}, {-0.5, 2.5, -3, kNaN})}};
  expectTensor(output(unaryModule("floor"), x), {4}, {-1, 2, -3, kNaN});
  expectTensor(output(unaryModule("ceil"), x), {4}, {-0.0, 3, -3, kNaN});
  Inputs big = {{"x", Tensor::of({4}, {-inf, inf, 1e20, -8388607.5})}};
  expectTensor(output(unaryModule("floor"), big), {4},
               {-inf, inf, 1e20, -8388608});
  expectTensor(output(unaryModule("ceil"), big), {4},
               {-inf, inf, 1e20, -8388607});
}

TEST_F(InterpreterTest, ErfIsOddAndSaturates) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor y = output(unaryModule("erf"),
                    {{"x", Tensor::of({4}, {-inf, -0.5, 1.5, kNaN})}});
  expectTensor(y, {4}, {-1, -0.52049987781304652, 0.96610514647531076, kNaN});
  Tensor z =
      output(unaryModule("erf"), {{"x", Tensor::of({4}, {0.5, -1.5, 10, 0})}});
  expectTensor(z, {4}, {0.52049987781304652, -0.96610514647531076, 1, 0});
}

TEST_F(InterpreterTest, TanhSaturatesForLargeInputs) {
  Tensor y = output(unaryModule("tanh"),
                    {{"x", Tensor::of({4}, {-1000, -0.5, 0.5, 1000})}},
                    Precision::F32);
  expectTensor(y, {4}, {-1, f32(std::tanh(-0.5)), f32(std::tanh(0.5)), 1});
}

TEST_F(InterpreterTest, Sigmoid) {
  Tensor y = output(unaryModule("sigmoid"),
                    {{"x", Tensor::of({4}, {-1000, 0, 2, 1000})}});
  expectTensor(y, {4}, {0, 0.5, 1 / (1 + std::exp(-2.0)), 1});
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// A = [[1, 2, 3], [4, 5, 6]], B = [[7, 8], [9, 10], [11, 12]]:
// A @ B = [[58, 64], [139, 154]]. Each test stores the operands transposed
// when the op transposes them, so every variant has the same result.
const std::vector<double> kA = {1, 2, 3, 4, 5, 6};
const std::vector<double> kAT = {1, 4, 2, 5, 3, 6};
const std::vector<double> kB = {7, 8, 9, 10, 11, 12};
const std::vector<double> kBT = {7, 9, 11, 8, 10, 12};
const std::vector<double> kAB = {58, 64, 139, 154};

/// A module multiplying inputs "a" and "b" with the given attributes.
std::string matmulModule(StringRef aType, StringRef bType, StringRef attrs) {
  return (R"mlir(
    ag.forward @f(%a: )mlir" +
          aType + R"mlir( {ag.name = "a"}, %b: )mlir" + bType +
          R"mlir( {ag.name = "b"}) -> (tensor<2x2xf32> {ag.name = "y"}) {
      %y = ag.matmul %a, %b )mlir" +
          attrs + " : (" + aType + ", " + bType + R"mlir() -> tensor<2x2xf32>
      ag.return %y : tensor<2x2xf32>
    })mlir")
      .str();
}

TEST_F(InterpreterTest, Matmul) {
  Tensor y =
      output(matmulModule("tensor<2x3xf32>", "tensor<3x2xf32>", ""),
             {{"a", Tensor::of({2, 3}, kA)}, {"b", Tensor::of({3, 2}, kB)}});
  expectTensor(y, {2, 2}, kAB);
}

TEST_F(InterpreterTest, MatmulTransposeA) {
  Tensor y = output(
      matmulModule("tensor<3x2xf32>", "tensor<3x2xf32>", "{transpose_a}"),
      {{"a", Tensor::of({3, 2}, kAT)}, {"b", Tensor::of({3, 2}, kB)}});
  expectTensor(y, {2, 2}, kAB);
}

TEST_F(InterpreterTest, MatmulTransposeB) {
  Tensor y = output(
      matmulModule("tensor<2x3xf32>", "tensor<2x3xf32>", "{transpose_b}"),
      {{"a", Tensor::of({2, 3}, kA)}, {"b", Tensor::of({2, 3}, kBT)}});
  expectTensor(y, {2, 2}, kAB);
}

TEST_F(InterpreterTest, MatmulTransposeBoth) {
  Tensor y =
      output(matmulModule("tensor<3x2xf32>", "tensor<2x3xf32>",
                          "{transpose_a, transpose_b}"),
             {{"a", Tensor::of({3, 2}, kAT)}, {"b", Tensor::of({2, 3}, kBT)}});
  expectTensor(y, {2, 2}, kAB);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// A module reducing the 2x3 input "x" with `op` (e.g. "sum %x axis = 0")
/// into output "y" of `resultType`.
std::string reductionModule(StringRef op, StringRef resultType) {
  return (R"mlir(
    ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> ()mlir" +
          resultType + R"mlir( {ag.name = "y"}) {
      %y = ag.)mlir" +
          op + " : tensor<2x3xf32> -> " + resultType + R"mlir(
      ag.return %y : )mlir" +
          resultType + R"mlir(
    })mlir")
      .str();
}

// x = [[1, 2, 3], [4, 5, 6]].
const Inputs kReduceInput = {{"x", Tensor::of({2, 3}, {1, 2, 3, 4, 5, 6})}};

TEST_F(InterpreterTest, SumAndMeanOfAllElements) {
  expectTensor(output(reductionModule("sum %x", "tensor<f32>"), kReduceInput),
               {}, {21});
  expectTensor(output(reductionModule("mean %x", "tensor<f32>"), kReduceInput),
               {}, {3.5});
  expectTensor(output(reductionModule("sum %x keepdim", "tensor<1x1xf32>"),
                      kReduceInput),
               {1, 1}, {21});
}

TEST_F(InterpreterTest, SumAndMeanAlongAxis) {
  expectTensor(
      output(reductionModule("sum %x axis = 0", "tensor<3xf32>"), kReduceInput),
      {3}, {5, 7, 9});
  expectTensor(
      output(reductionModule("sum %x axis = 1", "tensor<2xf32>"), kReduceInput),
      {2}, {6, 15});
  expectTensor(output(reductionModule("mean %x axis = 0", "tensor<3xf32>"),
                      kReduceInput),
               {3}, {2.5, 3.5, 4.5});
  expectTensor(
      output(reductionModule("mean %x axis = 1 keepdim", "tensor<2x1xf32>"),
             kReduceInput),
      {2, 1}, {2, 5});
}

TEST_F(InterpreterTest, ReductionsWithNegativeAxis) {
  expectTensor(output(reductionModule("sum %x axis = -1", "tensor<2xf32>"),
                      kReduceInput),
               {2}, {6, 15});
  expectTensor(
      output(reductionModule("mean %x axis = -2 keepdim", "tensor<1x3xf32>"),
             kReduceInput),
      {1, 3}, {2.5, 3.5, 4.5});
}

TEST_F(InterpreterTest, SumAlongMiddleAxisOfRank3) {
  Tensor y = output(
      R"mlir(
    ag.forward @f(%x: tensor<2x3x2xf32> {ag.name = "x"}) -> (tensor<2x2xf32> {ag.name = "y"}) {
      %y = ag.sum %x axis = 1 : tensor<2x3x2xf32> -> tensor<2x2xf32>
      ag.return %y : tensor<2x2xf32>
    })mlir",
      {{"x", Tensor::of({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})}});
  expectTensor(y, {2, 2}, {6, 9, 24, 27});
}

//===----------------------------------------------------------------------===//
// Constants, weights, probes, uploads
//===----------------------------------------------------------------------===//

const char *kWeightModule = R"mlir(
  ag.weight @w trainable : tensor<2xf32> = dense<[1.5, -2.0]>
  ag.weight @z : tensor<2xf32> = #ag.init<zeros>
  ag.weight @u : tensor<3xf32> = #ag.init<uniform, low = -1.0, high = 2.0, seed = 5>
  ag.weight @unset : tensor<2xf32>
  ag.forward @f() -> (tensor<2xf32> {ag.name = "w"}, tensor<2xf32> {ag.name = "z"}, tensor<3xf32> {ag.name = "u"}) {
    %w = ag.read_weight @w : tensor<2xf32>
    %z = ag.read_weight @z : tensor<2xf32>
    %u = ag.read_weight @u : tensor<3xf32>
    ag.return %w, %z, %u : tensor<2xf32>, tensor<2xf32>, tensor<3xf32>
  }
  ag.forward @g() -> (tensor<2xf32> {ag.name = "y"}) {
    %y = ag.read_weight @unset : tensor<2xf32>
    ag.return %y : tensor<2xf32>
  })mlir";

TEST_F(InterpreterTest, WeightsUseInitialValuesOrInitializers) {
  FailureOr<EvalResult> result = run(kWeightModule, {}, {}, "f");
  ASSERT_TRUE(succeeded(result)) << errors;
  expectTensor(result->outputs.at("w"), {2}, {1.5, -2});
  expectTensor(result->outputs.at("z"), {2}, {0, 0});
  // The runtime's own evaluation: the same bits on both sides.
  capture::rt::InitializerDesc rule;
  rule.kind = capture::rt::InitKind::Uniform;
  rule.low = -1;
  rule.high = 2;
  rule.seed = 5;
  std::vector<float> u(3);
  capture::rt::evaluateInitializer(rule, u.size(), u.data());
  expectTensor(result->outputs.at("u"), {3}, {u[0], u[1], u[2]});
}

TEST_F(InterpreterTest, UnsetWeightIsAnErrorWhereItIsRead) {
  EvalOptions options;
  EXPECT_TRUE(failed(run(kWeightModule, {}, options, "g")));
  EXPECT_NE(errors.find("reads weight @unset, which has no initial value and "
                        "was not given"),
            std::string::npos)
      << errors;
  options.weights["unset"] = Tensor::of({2}, {3, 4});
  FailureOr<EvalResult> given = run(kWeightModule, {}, options, "g");
  ASSERT_TRUE(succeeded(given)) << errors;
  expectTensor(given->outputs.at("y"), {2}, {3, 4});
}

TEST_F(InterpreterTest, WeightOverridesReplaceInitialValues) {
  EvalOptions options;
  options.weights["w"] = Tensor::of({2}, {7, 8});
  options.weights["z"] = Tensor::of({2}, {9, 10});
  FailureOr<EvalResult> result = run(kWeightModule, {}, options, "f");
  ASSERT_TRUE(succeeded(result)) << errors;
  expectTensor(result->outputs.at("w"), {2}, {7, 8});
  expectTensor(result->outputs.at("z"), {2}, {9, 10});
}

TEST_F(InterpreterTest, ConstantsProbesAndConstantUploads) {
  FailureOr<EvalResult> result = run(R"mlir(
    ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
      %c = ag.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %s = ag.constant dense<3.0> : tensor<2xf32>
      %u = ag.upload constant : tensor<2xf32> = dense<[100.0, 200.0]>
      %a = ag.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %p = ag.probe "sum" %a : tensor<2xf32>
      %b = ag.mul %p, %s : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %y = ag.add %b, %u : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      ag.return %y : tensor<2xf32>
    })mlir",
                                     {{"x", Tensor::of({2}, {10, 20})}});
  ASSERT_TRUE(succeeded(result)) << errors;
  expectTensor(result->probes.at("sum"), {2}, {11, 22});
  expectTensor(result->outputs.at("y"), {2}, {133, 266});
  EXPECT_EQ(result->probes.size(), 1u);
  EXPECT_EQ(result->outputs.size(), 1u);
}

TEST_F(InterpreterTest, ReadsResourceBlobs) {
  // Blobs start with their alignment (4), then little-endian floats 1, 2.
  Tensor y = output(R"mlir(
    ag.weight @w : tensor<2xf32> = dense_resource<blob>
    ag.forward @f() -> (tensor<2xf32> {ag.name = "y"}) {
      %w = ag.read_weight @w : tensor<2xf32>
      %c = ag.constant dense_resource<blob> : tensor<2xf32>
      %y = ag.mul %w, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      ag.return %y : tensor<2xf32>
    }
    {-#
      dialect_resources: {
        builtin: {
          blob: "0x040000000000803F00000040"
        }
      }
    #-})mlir");
  expectTensor(y, {2}, {1, 4});
}

TEST_F(InterpreterTest, PicksNamedEntry) {
  const char *source = R"mlir(
    ag.forward @one() -> (tensor<f32> {ag.name = "y"}) {
      %c = ag.constant dense<1.0> : tensor<f32>
      ag.return %c : tensor<f32>
    }
    ag.forward @two() -> (tensor<f32> {ag.name = "y"}) {
      %c = ag.constant dense<2.0> : tensor<f32>
      ag.return %c : tensor<f32>
    })mlir";
  FailureOr<EvalResult> result = run(source, {}, {}, "two");
  ASSERT_TRUE(succeeded(result)) << errors;
  expectTensor(result->outputs.at("y"), {}, {2});
  FailureOr<Entry> entry = lookupEntry(*module, "one");
  ASSERT_TRUE(succeeded(entry));
  EXPECT_EQ(entry->getSymName(), "one");
}

//===----------------------------------------------------------------------===//
// Precision
//===----------------------------------------------------------------------===//

// 2^24 + 1 + 1 + 1 + 1: in float every +1 rounds back to 2^24 (ties to
// even); in double the sum is exact.
const char *kAccumulationModule = R"mlir(
  ag.forward @f(%x: tensor<5xf32> {ag.name = "x"}, %m: tensor<1x5xf32> {ag.name = "m"},
                %v: tensor<5x1xf32> {ag.name = "v"})
      -> (tensor<f32> {ag.name = "sum"}, tensor<1x1xf32> {ag.name = "dot"},
          tensor<f32> {ag.name = "mean"}) {
    %s = ag.sum %x : tensor<5xf32> -> tensor<f32>
    %d = ag.matmul %m, %v : (tensor<1x5xf32>, tensor<5x1xf32>) -> tensor<1x1xf32>
    %n = ag.mean %x : tensor<5xf32> -> tensor<f32>
    ag.return %s, %d, %n : tensor<f32>, tensor<1x1xf32>, tensor<f32>
  })mlir";
const Inputs kAccumulationInputs = {
    {"x", Tensor::of({5}, {16777216, 1, 1, 1, 1})},
    {"m", Tensor::of({1, 5}, {16777216, 1, 1, 1, 1})},
    {"v", Tensor::of({5, 1}, {1, 1, 1, 1, 1})}};

TEST_F(InterpreterTest, F32AccumulatesInFloat) {
  EvalOptions options;
  options.precision = Precision::F32;
  FailureOr<EvalResult> result =
      run(kAccumulationModule, kAccumulationInputs, options);
  ASSERT_TRUE(succeeded(result)) << errors;
  expectTensor(result->outputs.at("sum"), {}, {16777216});
  expectTensor(result->outputs.at("dot"), {1, 1}, {16777216});
  expectTensor(result->outputs.at("mean"), {}, {f32(16777216.0 / 5)});
}

TEST_F(InterpreterTest, F64AccumulatesInDouble) {
  EvalOptions options;
  options.precision = Precision::F64;
  FailureOr<EvalResult> result =
      run(kAccumulationModule, kAccumulationInputs, options);
  ASSERT_TRUE(succeeded(result)) << errors;
  expectTensor(result->outputs.at("sum"), {}, {16777220});
  expectTensor(result->outputs.at("dot"), {1, 1}, {16777220});
  expectTensor(result->outputs.at("mean"), {}, {16777220.0 / 5});
}

TEST_F(InterpreterTest, F32RoundsInputs) {
  const char *source = R"mlir(
    ag.forward @f(%x: tensor<f32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "y"}) {
      ag.return %x : tensor<f32>
    })mlir";
  Inputs x = {{"x", Tensor::of({}, {0.1})}};
  expectTensor(output(source, x, Precision::F32), {}, {f32(0.1)});
  expectTensor(output(source, x, Precision::F64), {}, {0.1});
}

// An assign writes the weight for the entries after it (the state carries
// it); the entry's own reads came before it and see the old value. An unset
// weight is refused, as the runtime refuses it.
TEST_F(InterpreterTest, AssignWeightWritesTheStateForLaterEntries) {
  module = parse(R"mlir(
    ag.weight @p : tensor<2xf32> = dense<[4.0, 8.0]>
    ag.weight @t : tensor<2xf32> = dense<0.0>
    ag.weight @unset : tensor<2xf32>
    ag.forward @soft() -> (tensor<2xf32> {ag.name = "old"}) {
      %p = ag.read_weight @p : tensor<2xf32>
      %t = ag.read_weight @t : tensor<2xf32>
      %h = ag.constant dense<0.5> : tensor<f32>
      %d = ag.sub %p, %t : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %s = ag.mul %d, %h : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
      %n = ag.add %t, %s : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      ag.assign_weight @t, %n : tensor<2xf32>
      ag.return %t : tensor<2xf32>
    }
    ag.forward @fill(%x: tensor<2xf32> {ag.name = "x"}) -> () {
      ag.assign_weight @unset, %x : tensor<2xf32>
      ag.return
    })mlir");
  ASSERT_TRUE(module);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    errors += diag.str() + "\n";
    return success();
  });
  TrainingState state;
  FailureOr<EvalResult> first = evaluate(*module, "soft", {}, state);
  ASSERT_TRUE(succeeded(first)) << errors;
  expectTensor(first->outputs.at("old"), {2}, {0, 0});
  expectTensor(state.weights.at("t"), {2}, {2, 4});
  FailureOr<EvalResult> second = evaluate(*module, "soft", {}, state);
  ASSERT_TRUE(succeeded(second)) << errors;
  expectTensor(second->outputs.at("old"), {2}, {2, 4});
  expectTensor(state.weights.at("t"), {2}, {3, 6});

  TrainingState before = state;
  EXPECT_TRUE(failed(
      evaluate(*module, "fill", {{"x", Tensor::of({2}, {1, 2})}}, state)));
  EXPECT_NE(errors.find("reads weight @unset, which has no initial value"),
            std::string::npos)
      << errors;
  EXPECT_FALSE(state.weights.count("unset"));
  EXPECT_EQ(state.weights.size(), before.weights.size());
}

} // namespace
