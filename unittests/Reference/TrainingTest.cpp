//===- TrainingTest.cpp - Training steps with AdamW -----------------------===//
//
// A hand-split training step (the form ag-split-update produces) run for
// several steps against an independent double-precision AdamW written here,
// the refusal of an update on a non-finite gradient norm, the runtime's
// hyperparameter inputs and the errors of the training API.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtils.h"

#include "capture/Reference/Training.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace capture::reference;
using namespace capture::reference::test;

namespace {

/// loss = sum((x @ w + b)^2), its hand-written backward, clipping as
/// ag-insert-clip-scale writes it, and the update; @w and @b are packed at
/// elements 0 and 64 of a 66-element pack (padding 8..63).
constexpr const char *kSplitStep = R"mlir(
  ag.weight @w trainable : tensor<4x2xf32> = dense<[[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6], [0.7, -0.8]]>
  ag.weight @b trainable : tensor<2xf32> = #ag.init<zeros>
  ag.param_pack @train.params weights([@w, @b]) offsets([0, 64]) size(66)
  ag.train_step @train(%x: tensor<3x4xf32> {ag.name = "x"},
                       %mgn: tensor<f32> {ag.hyper = "max_grad_norm", ag.name = "max_grad_norm"},
                       %h: tensor<7xf32> {ag.hyper = "adamw", ag.name = "adamw"})
      -> (tensor<f32> {ag.name = "loss"}, tensor<f32> {ag.grad_norm, ag.name = "grad_norm"})
      attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>, max_grad_norm = 1.0 : f32} {
    %w = ag.read_weight @w : tensor<4x2xf32>
    %b = ag.read_weight @b : tensor<2xf32>
    %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    %z = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
    %zz = ag.mul %z, %z : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %loss = ag.sum %zz : tensor<3x2xf32> -> tensor<f32>
    %gz = ag.add %z, %z : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %gw = ag.matmul %x, %gz {transpose_a} : (tensor<3x4xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    %gb = ag.sum %gz axis = 0 : tensor<3x2xf32> -> tensor<2xf32>
    %g = ag.pack_grads @train.params(%gw, %gb) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<66xf32>
    %gg = ag.mul %g, %g : (tensor<66xf32>, tensor<66xf32>) -> tensor<66xf32>
    %ss = ag.sum %gg : tensor<66xf32> -> tensor<f32>
    %n = ag.sqrt %ss : tensor<f32>
    %tiny = ag.constant dense<1.0e-6> : tensor<f32>
    %d = ag.add %n, %tiny : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %q = ag.div %mgn, %d : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %one = ag.constant dense<1.0> : tensor<f32>
    %scale = ag.minimum %q, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %gs = ag.mul %g, %scale : (tensor<66xf32>, tensor<f32>) -> tensor<66xf32>
    ag.apply_adamw @train.params grads(%gs) grad_norm(%n) hyper(%h) : tensor<66xf32>, tensor<f32>, tensor<7xf32>
    ag.return %loss, %n : tensor<f32>, tensor<f32>
  })mlir";

/// The inputs of step `k` (0-based): a different batch every step.
Inputs batch(int k) {
  std::vector<double> x;
  for (int i = 0; i < 12; ++i)
    x.push_back(((i * 7 + k * 5) % 11) / 4.0 - 1.25);
  return {{"x", Tensor::of({3, 4}, x)}};
}

/// torch.optim.AdamW with clip_grad_norm_, in double, on the model of
/// kSplitStep: the oracle the interpreter's steps are checked against.
struct ReferenceAdamW {
  /// w (row-major) then b: the pack without its padding. @w's initial
  /// value is an f32 attribute, so it holds floats in both precisions.
  std::vector<double> params{f32(0.1),  f32(-0.2), f32(0.3), f32(0.4),
                             f32(-0.5), f32(0.6),  f32(0.7), f32(-0.8),
                             0,         0};
  std::vector<double> m = std::vector<double>(10, 0.0);
  std::vector<double> v = std::vector<double>(10, 0.0);
  int t = 0;
  double lr = 1e-2, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, wd = 0.01;
  double maxGradNorm = 1.0;
  double loss = 0, gradNorm = 0;

  void step(const Tensor &x) {
    std::vector<double> grads(10, 0.0);
    loss = 0;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 2; ++c) {
        double z = params[8 + c];
        for (int k = 0; k < 4; ++k)
          z += x.data[r * 4 + k] * params[k * 2 + c];
        loss += z * z;
        for (int k = 0; k < 4; ++k)
          grads[k * 2 + c] += x.data[r * 4 + k] * 2 * z;
        grads[8 + c] += 2 * z;
      }
    }
    double sum = 0;
    for (double g : grads)
      sum += g * g;
    gradNorm = std::sqrt(sum);
    // The step's constant 1e-6 is an f32 constant.
    double scale =
        std::min(1.0, maxGradNorm / (gradNorm + static_cast<float>(1e-6)));
    ++t;
    double bc1 = 1 - std::pow(beta1, t), bc2 = 1 - std::pow(beta2, t);
    for (int i = 0; i < 10; ++i) {
      double g = grads[i] * scale;
      params[i] *= 1 - lr * wd;
      m[i] = beta1 * m[i] + (1 - beta1) * g;
      v[i] = beta2 * v[i] + (1 - beta2) * g * g;
      params[i] -= (lr / bc1) * m[i] / (std::sqrt(v[i]) / std::sqrt(bc2) + eps);
    }
  }
};

/// Expects `actual` within `tolerance` of `expected`, relative to its
/// magnitude (at least 1e-3, so that values near zero compare absolutely).
void expectRelative(double actual, double expected, double tolerance,
                    const std::string &what) {
  double scale = std::max(std::fabs(expected), 1e-3);
  EXPECT_LE(std::fabs(actual - expected), tolerance * scale)
      << what << ": got " << actual << ", expected " << expected;
}

/// The pack element of parameter `i` of ReferenceAdamW::params.
int64_t packIndex(int i) { return i < 8 ? i : 64 + (i - 8); }

/// The interpreter's state after the reference's steps, compared with it.
void expectMatches(const TrainingState &state, const ReferenceAdamW &ref,
                   double tolerance) {
  EXPECT_EQ(state.step, ref.t);
  const Tensor &w = state.weights.at("w"), &b = state.weights.at("b");
  const AdamWMoments &moments = state.moments.at("train.params");
  for (int i = 0; i < 10; ++i) {
    double p = i < 8 ? w.data[i] : b.data[i - 8];
    std::string at =
        " #" + std::to_string(i) + " after step " + std::to_string(ref.t);
    expectRelative(p, ref.params[i], tolerance, "parameter" + at);
    expectRelative(moments.m.data[packIndex(i)], ref.m[i], tolerance, "m" + at);
    expectRelative(moments.v.data[packIndex(i)], ref.v[i], tolerance, "v" + at);
  }
}

/// Whether `a` and `b` hold the same shapes and the same bits.
bool bitwiseEqual(const Tensor &a, const Tensor &b) {
  return a.shape == b.shape && a.data.size() == b.data.size() &&
         std::memcmp(a.data.data(), b.data.data(),
                     a.data.size() * sizeof(double)) == 0;
}

class TrainingTest : public InterpreterTest {
protected:
  /// Parses kSplitStep and reads its compiled hyperparameters.
  void SetUp() override {
    module = parse(kSplitStep);
    ASSERT_TRUE(module);
    FailureOr<Entry> entry = lookupEntry(*module, "train");
    ASSERT_TRUE(succeeded(entry));
    FailureOr<TrainingHyper> compiled = getCompiledHyper(*entry);
    ASSERT_TRUE(succeeded(compiled));
    hyper = *compiled;
  }

  /// One step; diagnostics go to `errors`.
  FailureOr<StepResult> step(TrainingState &state, const Inputs &inputs,
                             Precision precision) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      errors += diag.str() + "\n";
      return success();
    });
    return trainStep(*module, "train", inputs, state, hyper, precision);
  }

  /// Runs three steps in `precision` next to the reference and checks the
  /// outputs and the state after each within `tolerance`.
  void checkThreeSteps(Precision precision, double tolerance) {
    TrainingState state;
    ReferenceAdamW ref;
    for (int k = 0; k < 3; ++k) {
      FailureOr<StepResult> result = step(state, batch(k), precision);
      ASSERT_TRUE(succeeded(result)) << errors;
      EXPECT_TRUE(result->applied);
      ref.step(batch(k).at("x"));
      // The outputs are the forward values from before the update.
      expectRelative(result->loss, ref.loss, tolerance, "loss");
      expectRelative(result->gradNorm, ref.gradNorm, tolerance, "grad_norm");
      expectRelative(result->eval.outputs.at("grad_norm").data[0], ref.gradNorm,
                     tolerance, "output grad_norm");
      expectMatches(state, ref, tolerance);
    }
  }

  TrainingHyper hyper;
};

TEST_F(TrainingTest, ThreeStepsMatchDoubleAdamWInF64) {
  checkThreeSteps(Precision::F64, 1e-6);
}

TEST_F(TrainingTest, ThreeStepsMatchDoubleAdamWInF32) {
  checkThreeSteps(Precision::F32, 1e-5);
}

TEST_F(TrainingTest, F32StateHoldsFloats) {
  TrainingState state;
  ASSERT_TRUE(succeeded(step(state, batch(0), Precision::F32))) << errors;
  for (const auto *tensor :
       {&state.weights.at("w"), &state.moments.at("train.params").m,
        &state.moments.at("train.params").v})
    for (double value : tensor->data)
      EXPECT_EQ(value, f32(value));
}

TEST_F(TrainingTest, NonFiniteNormLeavesStateUntouched) {
  for (Precision precision : {Precision::F32, Precision::F64}) {
    TrainingState state;
    ASSERT_TRUE(succeeded(step(state, batch(0), precision))) << errors;
    TrainingState before = state;

    Inputs poisoned = batch(1);
    poisoned.at("x").data[5] = kNaN;
    FailureOr<StepResult> refused = step(state, poisoned, precision);
    ASSERT_TRUE(succeeded(refused)) << errors;
    EXPECT_FALSE(refused->applied);
    EXPECT_TRUE(std::isnan(refused->gradNorm));
    EXPECT_EQ(state.step, 1);
    for (const char *name : {"w", "b"})
      EXPECT_TRUE(bitwiseEqual(state.weights.at(name), before.weights.at(name)))
          << name;
    const AdamWMoments &now = state.moments.at("train.params");
    const AdamWMoments &then = before.moments.at("train.params");
    EXPECT_TRUE(bitwiseEqual(now.m, then.m));
    EXPECT_TRUE(bitwiseEqual(now.v, then.v));

    // The next step is the one the refused step would have been.
    FailureOr<StepResult> next = step(state, batch(1), precision);
    ASSERT_TRUE(succeeded(next) && next->applied) << errors;
    TrainingState direct = before;
    FailureOr<StepResult> expected = step(direct, batch(1), precision);
    ASSERT_TRUE(succeeded(expected)) << errors;
    EXPECT_EQ(next->loss, expected->loss);
    EXPECT_EQ(state.step, 2);
    for (const char *name : {"w", "b"})
      EXPECT_TRUE(bitwiseEqual(state.weights.at(name), direct.weights.at(name)))
          << name;
    EXPECT_TRUE(bitwiseEqual(state.moments.at("train.params").m,
                             direct.moments.at("train.params").m));
    EXPECT_TRUE(bitwiseEqual(state.moments.at("train.params").v,
                             direct.moments.at("train.params").v));
  }
}

TEST_F(TrainingTest, RefusedFirstStepAddsNoMoments) {
  TrainingState state;
  Inputs poisoned = batch(0);
  poisoned.at("x").data[0] = std::numeric_limits<double>::infinity();
  FailureOr<StepResult> refused = step(state, poisoned, Precision::F32);
  ASSERT_TRUE(succeeded(refused)) << errors;
  EXPECT_FALSE(refused->applied);
  EXPECT_EQ(state.step, 0);
  EXPECT_TRUE(state.moments.empty());
  expectTensor(state.weights.at("b"), {2}, {0, 0});
}

TEST_F(TrainingTest, PaddingMomentsStayZero) {
  TrainingState state;
  for (int k = 0; k < 3; ++k)
    ASSERT_TRUE(succeeded(step(state, batch(k), Precision::F32))) << errors;
  const AdamWMoments &moments = state.moments.at("train.params");
  ASSERT_EQ(moments.m.shape, std::vector<int64_t>{66});
  for (int64_t i = 8; i < 64; ++i) {
    EXPECT_EQ(moments.m.data[i], 0.0) << "m at padding element " << i;
    EXPECT_EQ(moments.v.data[i], 0.0) << "v at padding element " << i;
  }
  // The weights' own elements did move.
  EXPECT_NE(moments.v.data[0], 0.0);
  EXPECT_NE(moments.v.data[65], 0.0);
}

TEST_F(TrainingTest, DenormalMomentsAreFlushedToZeroOfTheirSign) {
  // Padding elements get no gradient: their moments only decay. Denormal
  // ones (+-1e-39, 1e-40) become zeros of their sign, at both precisions,
  // as the AdamW kernel stores them.
  for (Precision precision : {Precision::F32, Precision::F64}) {
    TrainingState state;
    ASSERT_TRUE(succeeded(step(state, batch(0), precision))) << errors;
    AdamWMoments &moments = state.moments.at("train.params");
    for (int64_t i = 8; i < 64; ++i) {
      moments.m.data[i] = i % 2 ? -1e-39 : 1e-39;
      moments.v.data[i] = 1e-40;
    }
    // A normal moment that decays to a normal one is kept: 0.9 * 2^-125.
    moments.m.data[8] = std::ldexp(1.0, -125);
    ASSERT_TRUE(succeeded(step(state, batch(1), precision))) << errors;
    // (A step replaces the state: look the moments up again.)
    const AdamWMoments &after = state.moments.at("train.params");
    EXPECT_GT(after.m.data[8], 0.0);
    for (int64_t i = 9; i < 64; ++i) {
      EXPECT_EQ(after.m.data[i], 0.0) << "m at padding element " << i;
      EXPECT_EQ(std::signbit(after.m.data[i]), i % 2 == 1)
          << "the sign of m at padding element " << i;
      EXPECT_EQ(after.v.data[i], 0.0) << "v at padding element " << i;
    }
  }
}

TEST_F(TrainingTest, ZeroLearningRateKeepsWeights) {
  // lr = 0 disables both the decay and the step: weights keep their bits,
  // while the moments still advance.
  hyper.lr = 0;
  TrainingState state;
  ASSERT_TRUE(succeeded(initializeWeights(*module, state, Precision::F32)));
  TrainingState before = state;
  ASSERT_TRUE(succeeded(step(state, batch(0), Precision::F32))) << errors;
  EXPECT_TRUE(bitwiseEqual(state.weights.at("w"), before.weights.at("w")));
  EXPECT_EQ(state.step, 1);
  EXPECT_NE(state.moments.at("train.params").m.data[0], 0.0);
}

//===----------------------------------------------------------------------===//
// The runtime's inputs
//===----------------------------------------------------------------------===//

TEST_F(TrainingTest, HyperInputsAsTheRuntimeWritesThem) {
  Entry entry = *lookupEntry(*module, "train");
  TrainingState state;
  state.step = 4;
  Inputs inputs;
  ASSERT_TRUE(
      succeeded(fillHyperInputs(entry, state, hyper, Precision::F32, inputs)));
  // Floats, with the bias corrections of step t + 1 = 5 computed in double
  // from the float betas.
  double beta1 = f32(0.9), beta2 = f32(0.999);
  expectTensor(inputs.at("adamw"), {7},
               {f32(1e-2), beta1, beta2, f32(1e-8), f32(0.01),
                f32(1 - std::pow(beta1, 5)), f32(1 - std::pow(beta2, 5))});
  expectTensor(inputs.at("max_grad_norm"), {}, {1.0});

  Inputs exact;
  ASSERT_TRUE(
      succeeded(fillHyperInputs(entry, state, hyper, Precision::F64, exact)));
  expectTensor(exact.at("adamw"), {7},
               {1e-2, 0.9, 0.999, 1e-8, 0.01, 1 - std::pow(0.9, 5),
                1 - std::pow(0.999, 5)});
}

TEST_F(TrainingTest, ErrorRuntimeInputSupplied) {
  Inputs inputs = batch(0);
  inputs["adamw"] = Tensor::filled({7}, 0.5);
  TrainingState state;
  EXPECT_TRUE(failed(step(state, inputs, Precision::F32)));
  EXPECT_NE(errors.find("input 'adamw' is filled by the runtime (ag.hyper = "
                        "\"adamw\"), from the AdamW hyperparameters and the "
                        "step counter; expected it not to be supplied"),
            std::string::npos)
      << errors;
}

TEST_F(TrainingTest, ErrorBadHyperparameters) {
  TrainingState state;
  hyper.lr = -1;
  EXPECT_TRUE(failed(step(state, batch(0), Precision::F32)));
  EXPECT_NE(errors.find("lr is -1, expected a finite value >= 0"),
            std::string::npos)
      << errors;
  hyper.lr = 1e-3;
  hyper.beta2 = 1;
  EXPECT_TRUE(failed(step(state, batch(0), Precision::F32)));
  EXPECT_NE(errors.find("beta2 is 1, expected a value in [0, 1)"),
            std::string::npos)
      << errors;
  hyper.beta2 = 0.999;
  hyper.maxGradNorm.reset();
  EXPECT_TRUE(failed(step(state, batch(0), Precision::F32)));
  EXPECT_NE(errors.find("@train clips gradients, but no clip limit "
                        "(max_grad_norm) is set"),
            std::string::npos)
      << errors;
  EXPECT_EQ(state.step, 0);
  EXPECT_TRUE(state.weights.empty());
}

TEST_F(TrainingTest, FailedStepLeavesStateUnchanged) {
  TrainingState state;
  ASSERT_TRUE(succeeded(step(state, batch(0), Precision::F32))) << errors;
  TrainingState before = state;
  EXPECT_TRUE(failed(step(state, {}, Precision::F32)));
  EXPECT_NE(errors.find("missing input 'x'"), std::string::npos) << errors;
  EXPECT_EQ(state.step, before.step);
  EXPECT_TRUE(bitwiseEqual(state.weights.at("w"), before.weights.at("w")));
}

TEST_F(TrainingTest, ErrorUnsplitStep) {
  module = parse(R"mlir(
    ag.weight @w trainable : tensor<2xf32>
    ag.train_step @train(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<f32> {ag.name = "loss"})
        attributes {optimizer = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
      %w = ag.read_weight @w : tensor<2xf32>
      %l = ag.sum %w : tensor<2xf32> -> tensor<f32>
      ag.return %l : tensor<f32>
    })mlir");
  hyper.maxGradNorm.reset();
  TrainingState state;
  EXPECT_TRUE(failed(step(state, {}, Precision::F32)));
  EXPECT_NE(errors.find("training step @train has no ag.apply_adamw"),
            std::string::npos)
      << errors;
}

TEST_F(TrainingTest, StatelessEvaluateDiscardsTheUpdate) {
  // The plain evaluate accepts a split step with the runtime's inputs given
  // and reports the update without keeping it.
  Entry entry = *lookupEntry(*module, "train");
  Inputs inputs = batch(0);
  ASSERT_TRUE(succeeded(
      fillHyperInputs(entry, TrainingState(), hyper, Precision::F64, inputs)));
  FailureOr<EvalResult> result =
      evaluate(*module, "train", inputs, EvalOptions{Precision::F64, {}});
  ASSERT_TRUE(succeeded(result)) << errors;
  ASSERT_EQ(result->updates.size(), 1u);
  EXPECT_TRUE(result->updates[0].applied);
  EXPECT_EQ(result->updates[0].pack, "train.params");
  ReferenceAdamW ref;
  ref.step(batch(0).at("x"));
  expectRelative(result->outputs.at("loss").data[0], ref.loss, 1e-12, "loss");
}

TEST_F(TrainingTest, ErrorMomentsOfWrongSize) {
  TrainingState state;
  state.moments["train.params"] = {Tensor::filled({8}, 0.0),
                                   Tensor::filled({8}, 0.0)};
  EXPECT_TRUE(failed(step(state, batch(0), Precision::F32)));
  EXPECT_NE(errors.find("the training state's moment m of @train.params has "
                        "shape [8] (8 values), expected [66] (the pack's "
                        "size)"),
            std::string::npos)
      << errors;
  state.moments.clear();
  state.moments["nope"] = {};
  EXPECT_TRUE(failed(step(state, batch(0), Precision::F32)));
  EXPECT_NE(errors.find("the training state has moments of 'nope', which is "
                        "not an ag.param_pack; the module's packs are "
                        "@train.params"),
            std::string::npos)
      << errors;
}

/// kSplitStep with each edit's first `from` replaced by its `to`.
std::string
editedStep(std::initializer_list<std::pair<StringRef, StringRef>> edits) {
  std::string text = kSplitStep;
  for (auto [from, to] : edits) {
    size_t at = text.find(from.str());
    EXPECT_NE(at, std::string::npos) << from.str();
    if (at != std::string::npos)
      text.replace(at, from.size(), to.str());
  }
  return text;
}

TEST_F(TrainingTest, ErrorForwardEntryIsNotATrainingStep) {
  module = parse(R"mlir(
    ag.forward @predict(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
      ag.return %x : tensor<2xf32>
    })mlir");
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    errors += diag.str() + "\n";
    return success();
  });
  TrainingState state;
  EXPECT_TRUE(
      failed(trainStep(*module, "predict", {}, state, hyper, Precision::F32)));
  EXPECT_NE(errors.find("@predict is an ag.forward, expected an ag.train_step"),
            std::string::npos)
      << errors;
  errors.clear();
  EXPECT_TRUE(failed(getCompiledHyper(*lookupEntry(*module, "predict"))));
  EXPECT_NE(errors.find("@predict is an ag.forward, expected an ag.train_step "
                        "(only training steps have hyperparameters)"),
            std::string::npos)
      << errors;
}

// A hand-edited step: ag.hyper names what the runtime fills, so a misspelt
// kind, a missing AdamW input or a clip limit of the wrong shape is refused
// before any step runs.
TEST_F(TrainingTest, ErrorUnknownHyperKind) {
  module =
      parse(editedStep({{R"(ag.hyper = "adamw")", R"(ag.hyper = "adam")"}}));
  TrainingState state;
  EXPECT_TRUE(failed(step(state, batch(0), Precision::F32)));
  EXPECT_NE(errors.find("input 'adamw' has ag.hyper = \"adam\", expected "
                        "\"adamw\" or \"max_grad_norm\""),
            std::string::npos)
      << errors;
  EXPECT_EQ(state.step, 0);
}

TEST_F(TrainingTest, ErrorNoAdamWHyperInput) {
  module = parse(editedStep({{R"({ag.hyper = "adamw", ag.name = "adamw"})",
                              R"({ag.name = "adamw"})"}}));
  TrainingState state;
  EXPECT_TRUE(failed(step(state, batch(0), Precision::F32)));
  EXPECT_NE(errors.find("@train has no input with ag.hyper = \"adamw\": run "
                        "ag-split-update"),
            std::string::npos)
      << errors;
}

TEST_F(TrainingTest, ErrorClipLimitOfWrongShape) {
  // The limit as a one-element vector, broadcast like the scalar.
  std::string text = editedStep(
      {{"%mgn: tensor<f32> {", "%mgn: tensor<1xf32> {"},
       {"%q = ag.div %mgn, %d : (tensor<f32>, tensor<f32>) -> tensor<f32>",
        "%q = ag.div %mgn, %d : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>"},
       {"%scale = ag.minimum %q, %one : (tensor<f32>, tensor<f32>) -> "
        "tensor<f32>",
        "%scale = ag.minimum %q, %one : (tensor<1xf32>, tensor<f32>) -> "
        "tensor<1xf32>"},
       {"%gs = ag.mul %g, %scale : (tensor<66xf32>, tensor<f32>)",
        "%gs = ag.mul %g, %scale : (tensor<66xf32>, tensor<1xf32>)"}});
  module = parse(text);
  ASSERT_TRUE(module);
  TrainingState state;
  EXPECT_TRUE(failed(step(state, batch(0), Precision::F32)));
  EXPECT_NE(errors.find("input 'max_grad_norm' (ag.hyper = \"max_grad_norm\") "
                        "must be an f32 tensor of shape [], but is "
                        "'tensor<1xf32>'"),
            std::string::npos)
      << errors;
}

} // namespace
