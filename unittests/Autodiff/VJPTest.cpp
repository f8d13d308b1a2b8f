//===- VJPTest.cpp - Every VJP against central finite differences ---------===//
//
// For each differentiable op: a training step whose loss is
// sum(op(weights...) * R) for a fixed random R, differentiated by
// ag-autodiff and evaluated by the reference interpreter in f64; each
// gradient must match central finite differences of the loss within 1e-3
// relative (to the gradient's largest magnitude).
//
//===----------------------------------------------------------------------===//

#include "capture/InitAll.h"
#include "capture/Reference/Interpreter.h"
#include "capture/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

using namespace mlir;
using namespace capture;
using capture::reference::Tensor;

namespace {

/// A deterministic generator of test values.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    double unit = static_cast<double>(state >> 11) / 9007199254740992.0;
    return lo + (hi - lo) * unit;
  }
  Tensor tensor(std::vector<int64_t> shape, double lo = -1, double hi = 1) {
    Tensor t = Tensor::filled(std::move(shape), 0);
    for (double &v : t.data)
      v = uniform(lo, hi);
    return t;
  }

private:
  uint64_t state;
};

/// One case: weights, inputs, and the body computing `%out` from them.
struct Case {
  /// Trainable weights: name -> shape (values are drawn at random).
  std::vector<std::pair<std::string, std::vector<int64_t>>> weights;
  /// Entry inputs (`%name`), by name, with their MLIR types and values.
  std::vector<std::tuple<std::string, std::string, Tensor>> inputs;
  /// Ops reading weights with ag.read_weight (as %<name>) and inputs, and
  /// defining %out.
  std::string body;
  /// The type of %out.
  std::vector<int64_t> outShape;
  /// Range of the random weight values.
  double lo = -1, hi = 1;
};

std::string tensorType(const std::vector<int64_t> &shape,
                       const char *element = "f32") {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + element + ">";
}

/// `value` with enough digits to round-trip a float.
std::string formatValue(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

/// The elements of `t` from `offset` on, nested by its dimensions from `dim`
/// on, e.g. `[[1, 2], [3, 4]]`.
std::string nestedElements(const Tensor &t, size_t dim, int64_t &offset) {
  if (dim == t.shape.size())
    return formatValue(t.data[offset++]);
  std::string s = "[";
  for (int64_t i = 0; i < t.shape[dim]; ++i)
    s += (i ? ", " : "") + nestedElements(t, dim + 1, offset);
  return s + "]";
}

/// A dense literal holding `t`, nested so that it matches its shape.
std::string denseOf(const Tensor &t) {
  int64_t offset = 0;
  return "dense<" + nestedElements(t, 0, offset) + ">";
}

class VJPTest : public ::testing::Test {
protected:
  VJPTest() {
    capture::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Builds, differentiates and checks one case.
  void check(const Case &c) {
    Random rng(42);
    Tensor projection = rng.tensor(c.outShape);
    std::string text;
    for (auto &[name, shape] : c.weights)
      text += "ag.weight @" + name + " trainable : " + tensorType(shape) + "\n";
    text += "ag.train_step @t(";
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      auto &[name, type, value] = c.inputs[i];
      text += (i ? ", %" : "%") + name + ": " + type + " {ag.name = \"" + name +
              "\"}";
    }
    text += ") -> (tensor<f32> {ag.name = \"loss\"}) attributes {optimizer "
            "= #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = "
            "1.0e-8, weight_decay = 0.0>} {\n";
    for (auto &[name, shape] : c.weights)
      text += "  %" + name + " = ag.read_weight @" + name + " : " +
              tensorType(shape) + "\n";
    text += c.body + "\n";
    std::string out = tensorType(c.outShape);
    text += "  %r = ag.constant " + denseOf(projection) + " : " + out + "\n";
    text +=
        "  %p = ag.mul %out, %r : (" + out + ", " + out + ") -> " + out + "\n";
    text += "  %loss = ag.sum %p : " + out + " -> tensor<f32>\n";
    text += "  ag.return %loss : tensor<f32>\n}\n";

    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << text;
    PassManager pm(&context);
    pm.addPass(createAutodiff());
    ASSERT_TRUE(succeeded(pm.run(*module))) << text;

    reference::EvalOptions options;
    options.precision = reference::Precision::F64;
    for (auto &[name, shape] : c.weights)
      options.weights[name] = rng.tensor(shape, c.lo, c.hi);
    std::map<std::string, Tensor> inputs;
    for (auto &[name, type, value] : c.inputs)
      inputs[name] = value;

    FailureOr<reference::EvalResult> result =
        reference::evaluate(*module, "t", inputs, options);
    ASSERT_TRUE(succeeded(result)) << text;
    auto lossAt = [&](const std::string &name, size_t k, double delta) {
      reference::EvalOptions shifted = options;
      shifted.weights[name].data[k] += delta;
      FailureOr<reference::EvalResult> r =
          reference::evaluate(*module, "t", inputs, shifted);
      EXPECT_TRUE(succeeded(r));
      return succeeded(r) ? r->outputs.at("loss").data[0] : NAN;
    };
    for (auto &[name, shape] : c.weights) {
      auto it = result->outputs.find("grad/" + name);
      ASSERT_NE(it, result->outputs.end()) << "no gradient for " << name;
      const Tensor &grad = it->second;
      ASSERT_EQ(grad.shape, shape);
      const double h = 1e-5;
      double maxErr = 0, scale = 0;
      for (size_t k = 0; k < grad.data.size(); ++k) {
        double fd = (lossAt(name, k, h) - lossAt(name, k, -h)) / (2 * h);
        maxErr = std::max(maxErr, std::fabs(fd - grad.data[k]));
        scale = std::max(scale, std::fabs(fd));
      }
      EXPECT_LE(maxErr, 1e-3 * std::max(scale, 1e-6))
          << "gradient of " << name << " (scale " << scale << ")\n"
          << text;
    }
  }

  DialectRegistry registry;
  MLIRContext context;
};

/// An i32 tensor [N] of `values`.
Tensor labels(std::vector<double> values) {
  // The size is read before `values` is moved from: the order in which
  // function arguments are evaluated is unspecified.
  auto size = static_cast<int64_t>(values.size());
  return Tensor::of({size}, std::move(values));
}

} // namespace

TEST_F(VJPTest, AddBroadcasts) {
  check({{{"a", {2, 3}}, {"b", {3}}},
         {},
         "  %out = ag.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> "
         "tensor<2x3xf32>",
         {2, 3}});
}

TEST_F(VJPTest, SubBroadcastsBothWays) {
  check({{{"a", {2, 1}}, {"b", {3}}},
         {},
         "  %out = ag.sub %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> "
         "tensor<2x3xf32>",
         {2, 3}});
}

TEST_F(VJPTest, Mul) {
  check({{{"a", {2, 3}}, {"b", {1, 3}}},
         {},
         "  %out = ag.mul %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> "
         "tensor<2x3xf32>",
         {2, 3}});
}

TEST_F(VJPTest, Div) {
  check({{{"a", {2, 3}}, {"b", {3}}},
         {},
         "  %out = ag.div %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> "
         "tensor<2x3xf32>",
         {2, 3},
         0.5,
         2.0});
}

TEST_F(VJPTest, MinimumAndMaximum) {
  check({{{"a", {2, 3}}, {"b", {2, 3}}},
         {},
         "  %m = ag.minimum %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> "
         "tensor<2x3xf32>\n"
         "  %out = ag.maximum %m, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> "
         "tensor<2x3xf32>",
         {2, 3}});
}

TEST_F(VJPTest, UnaryChain) {
  // exp, log, tanh, sigmoid, neg, square, sqrt, relu in one chain; log and
  // sqrt see positive values.
  check({{{"a", {2, 3}}},
         {},
         "  %0 = ag.tanh %a : tensor<2x3xf32>\n"
         "  %1 = ag.sigmoid %0 : tensor<2x3xf32>\n"
         "  %2 = ag.exp %1 : tensor<2x3xf32>\n"
         "  %3 = ag.log %2 : tensor<2x3xf32>\n"
         "  %4 = ag.square %a : tensor<2x3xf32>\n"
         "  %5 = ag.sqrt %2 : tensor<2x3xf32>\n"
         "  %6 = ag.neg %4 : tensor<2x3xf32>\n"
         "  %7 = ag.relu %a : tensor<2x3xf32>\n"
         "  %8 = ag.add %3, %5 : (tensor<2x3xf32>, tensor<2x3xf32>) -> "
         "tensor<2x3xf32>\n"
         "  %9 = ag.add %8, %6 : (tensor<2x3xf32>, tensor<2x3xf32>) -> "
         "tensor<2x3xf32>\n"
         "  %out = ag.add %9, %7 : (tensor<2x3xf32>, tensor<2x3xf32>) -> "
         "tensor<2x3xf32>",
         {2, 3}});
}

TEST_F(VJPTest, FloorAndCeil) {
  // Zero gradients (PyTorch's), checked away from the integers where the
  // finite differences see the steps: the values drawn in [-3, 3) are 0.04
  // or more from one. floor and ceil are multiplied by %a so that a
  // wrong VJP shows against the gradient through the other factor.
  check({{{"a", {4, 3}}},
         {},
         "  %0 = ag.floor %a : tensor<4x3xf32>\n"
         "  %1 = ag.ceil %a : tensor<4x3xf32>\n"
         "  %2 = ag.mul %0, %a : (tensor<4x3xf32>, tensor<4x3xf32>) -> "
         "tensor<4x3xf32>\n"
         "  %3 = ag.mul %1, %a : (tensor<4x3xf32>, tensor<4x3xf32>) -> "
         "tensor<4x3xf32>\n"
         "  %out = ag.add %2, %3 : (tensor<4x3xf32>, tensor<4x3xf32>) -> "
         "tensor<4x3xf32>",
         {4, 3},
         -3.0,
         3.0});
}

TEST_F(VJPTest, Erf) {
  // erf' = 2 / sqrt(pi) * exp(-x^2), over the range where it changes most.
  check({{{"a", {4, 3}}},
         {},
         "  %out = ag.erf %a : tensor<4x3xf32>",
         {4, 3},
         -2.5,
         2.5});
}

TEST_F(VJPTest, Clamp) {
  check({{{"a", {4, 3}}},
         {},
         "  %out = ag.clamp %a min = -0.5 max = 0.5 : tensor<4x3xf32>",
         {4, 3}});
}

TEST_F(VJPTest, MatmulEveryTranspose) {
  check({{{"a", {2, 3}}, {"b", {3, 4}}, {"c", {4, 3}}, {"d", {3, 2}}},
         {},
         "  %0 = ag.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> "
         "tensor<2x4xf32>\n"
         "  %1 = ag.matmul %a, %c {transpose_b} : (tensor<2x3xf32>, "
         "tensor<4x3xf32>) -> tensor<2x4xf32>\n"
         "  %2 = ag.matmul %d, %b {transpose_a} : (tensor<3x2xf32>, "
         "tensor<3x4xf32>) -> tensor<2x4xf32>\n"
         "  %3 = ag.matmul %d, %c {transpose_a, transpose_b} : "
         "(tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>\n"
         "  %4 = ag.add %0, %1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> "
         "tensor<2x4xf32>\n"
         "  %5 = ag.add %2, %3 : (tensor<2x4xf32>, tensor<2x4xf32>) -> "
         "tensor<2x4xf32>\n"
         "  %out = ag.mul %4, %5 : (tensor<2x4xf32>, tensor<2x4xf32>) -> "
         "tensor<2x4xf32>",
         {2, 4}});
}

TEST_F(VJPTest, Reductions) {
  check({{{"a", {3, 4}}},
         {},
         "  %0 = ag.sum %a axis = 1 : tensor<3x4xf32> -> tensor<3xf32>\n"
         "  %1 = ag.mean %a axis = -2 keepdim : tensor<3x4xf32> -> "
         "tensor<1x4xf32>\n"
         "  %2 = ag.max %a axis = 0 : tensor<3x4xf32> -> tensor<4xf32>\n"
         "  %3 = ag.mean %a : tensor<3x4xf32> -> tensor<f32>\n"
         "  %4 = ag.max %a : tensor<3x4xf32> -> tensor<f32>\n"
         "  %5 = ag.reshape %0 : tensor<3xf32> -> tensor<3x1xf32>\n"
         "  %6 = ag.add %5, %1 : (tensor<3x1xf32>, tensor<1x4xf32>) -> "
         "tensor<3x4xf32>\n"
         "  %7 = ag.mul %6, %2 : (tensor<3x4xf32>, tensor<4xf32>) -> "
         "tensor<3x4xf32>\n"
         "  %8 = ag.mul %7, %3 : (tensor<3x4xf32>, tensor<f32>) -> "
         "tensor<3x4xf32>\n"
         "  %out = ag.add %8, %4 : (tensor<3x4xf32>, tensor<f32>) -> "
         "tensor<3x4xf32>",
         {3, 4}});
}

TEST_F(VJPTest, ShapeOps) {
  check({{{"a", {2, 3, 4}}, {"b", {3}}},
         {},
         "  %0 = ag.transpose %a permutation = [2, 0, 1] : tensor<2x3x4xf32> "
         "-> tensor<4x2x3xf32>\n"
         "  %1 = ag.reshape %0 : tensor<4x2x3xf32> -> tensor<8x3xf32>\n"
         "  %2 = ag.broadcast_to %b : tensor<3xf32> -> tensor<2x3xf32>\n"
         "  %3 = ag.concat %1, %2, %1 axis = 0 : (tensor<8x3xf32>, "
         "tensor<2x3xf32>, tensor<8x3xf32>) -> tensor<18x3xf32>\n"
         "  %out = ag.slice %3 axis = 0 start = 5 end = 12 : "
         "tensor<18x3xf32> -> tensor<7x3xf32>",
         {7, 3}});
}

TEST_F(VJPTest, SoftmaxAndLogSoftmax) {
  check({{{"a", {3, 5}}},
         {},
         "  %0 = ag.softmax %a axis = 1 : tensor<3x5xf32>\n"
         "  %1 = ag.log_softmax %a axis = 0 : tensor<3x5xf32>\n"
         "  %out = ag.add %0, %1 : (tensor<3x5xf32>, tensor<3x5xf32>) -> "
         "tensor<3x5xf32>",
         {3, 5}});
}

TEST_F(VJPTest, CrossEntropy) {
  check({{{"a", {4, 5}}},
         {{"labels", "tensor<4xi32>", labels({0, 3, 4, 3})}},
         "  %out = ag.cross_entropy %a, %labels : (tensor<4x5xf32>, "
         "tensor<4xi32>) -> tensor<f32>",
         {}});
}

TEST_F(VJPTest, Mse) {
  check({{{"a", {3, 2}}, {"b", {3, 2}}},
         {},
         "  %out = ag.mse %a, %b : (tensor<3x2xf32>, tensor<3x2xf32>) -> "
         "tensor<f32>",
         {}});
}

TEST_F(VJPTest, GetRowsWithRepeats) {
  check({{{"table", {5, 3}}},
         {{"ids", "tensor<4xi32>", labels({1, 4, 1, 0})}},
         "  %out = ag.get_rows %table, %ids : (tensor<5x3xf32>, "
         "tensor<4xi32>) -> tensor<4x3xf32>",
         {4, 3}});
}

TEST_F(VJPTest, ProbeIsIdentity) {
  check({{{"a", {2, 2}}},
         {},
         "  %0 = ag.probe \"p\" %a : tensor<2x2xf32>\n"
         "  %out = ag.square %0 : tensor<2x2xf32>",
         {2, 2}});
}

TEST_F(VJPTest, StopGradientPassesNoGradient) {
  // loss = sum((w * x + stop_gradient(w) * x + stop_gradient(u))^2), whose
  // value is sum((2 w x + u)^2). Only the first term carries a gradient:
  // dloss/dw = 2 (2 w x + u) x, half of what differentiating through the
  // stop_gradient would give (finite differences see that, so this case is
  // checked against the formula). @u reaches the loss only through a
  // stop_gradient: like a weight the loss does not read, it gets no
  // gradient output.
  const char *text = R"mlir(
    ag.weight @w trainable : tensor<3xf32>
    ag.weight @u trainable : tensor<3xf32>
    ag.train_step @t(%x: tensor<3xf32> {ag.name = "x"})
        -> (tensor<f32> {ag.name = "loss"})
        attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
      %w = ag.read_weight @w : tensor<3xf32>
      %u = ag.read_weight @u : tensor<3xf32>
      %ws = ag.stop_gradient %w : tensor<3xf32>
      %us = ag.stop_gradient %u : tensor<3xf32>
      %a = ag.mul %w, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %b = ag.mul %ws, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %ab = ag.add %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %y = ag.add %ab, %us : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %sq = ag.square %y : tensor<3xf32>
      %loss = ag.sum %sq : tensor<3xf32> -> tensor<f32>
      ag.return %loss : tensor<f32>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pm.addPass(createAutodiff());
  ASSERT_TRUE(succeeded(pm.run(*module)));

  const std::vector<double> w = {0.5, -1.25, 2}, u = {1, -3, 0.25},
                            x = {3, 0.5, -2};
  reference::EvalOptions options;
  options.precision = reference::Precision::F64;
  options.weights["w"] = Tensor::of({3}, w);
  options.weights["u"] = Tensor::of({3}, u);
  FailureOr<reference::EvalResult> result =
      reference::evaluate(*module, "t", {{"x", Tensor::of({3}, x)}}, options);
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(result->outputs.count("grad/u"), 0u) << "@u got a gradient";
  auto grad = result->outputs.find("grad/w");
  ASSERT_NE(grad, result->outputs.end()) << "no gradient for @w";
  ASSERT_EQ(grad->second.shape, std::vector<int64_t>{3});
  double loss = 0;
  for (size_t i = 0; i < 3; ++i) {
    double y = 2 * w[i] * x[i] + u[i];
    loss += y * y;
    EXPECT_DOUBLE_EQ(grad->second.data[i], 2 * y * x[i]) << "element " << i;
  }
  EXPECT_DOUBLE_EQ(result->outputs.at("loss").data[0], loss);
}
