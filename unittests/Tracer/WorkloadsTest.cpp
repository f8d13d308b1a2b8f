//===- WorkloadsTest.cpp - Traced workloads train like hand-written ones --===//
//
// The PPO and MLP workloads written with the tracer (examples/cpp/models.h),
// as a user would, train to the same numbers as the hand-written modules in
// examples/: with the same weights and inputs, the interpreter gives
// bitwise equal losses, gradient norms and weights after every step.
//
//===----------------------------------------------------------------------===//

#include "capture/Tracer/Tracer.h"

#include "../../examples/cpp/models.h"

#include "capture/InitAll.h"
#include "capture/Reference/Training.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace capture;
namespace ref = capture::reference;

namespace {

/// A module parsed from text or a file, split into its update as
/// capture-interp does.
struct Module {
  Module() {
    mlir::DialectRegistry registry;
    mlir::registerAllDialects(registry);
    capture::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
  }
  /// Parses and splits; false (with a failed expectation) on any error.
  bool load(std::unique_ptr<llvm::MemoryBuffer> buffer) {
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    module = mlir::parseSourceFile<mlir::ModuleOp>(sources, &context);
    if (!module)
      return false;
    capture::registerAllPasses();
    mlir::PassManager pm(&context);
    std::string errors;
    llvm::raw_string_ostream os(errors);
    if (mlir::failed(mlir::parsePassPipeline(
            "ag-autodiff,ag-pack-params,ag-insert-clip-scale,ag-split-update",
            pm, os)))
      return false;
    return mlir::succeeded(pm.run(*module));
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// Loads examples/<name> of the source tree.
bool loadExample(Module &m, const std::string &name) {
  std::string error;
  auto file = mlir::openInputFile(
      std::string(CAPTURE_SOURCE_DIR) + "/examples/" + name, &error);
  EXPECT_TRUE(file) << error;
  return file && m.load(std::move(file));
}

/// Deterministic values in [-scale, scale).
std::vector<double> values(size_t n, uint64_t seed, double scale) {
  std::vector<double> v(n);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (double &d : v) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    d = static_cast<float>(((x >> 40) / double(1 << 24) * 2 - 1) * scale);
  }
  return v;
}

bool bitwiseEqual(const ref::Tensor &a, const ref::Tensor &b) {
  return a.shape == b.shape && std::memcmp(a.data.data(), b.data.data(),
                                           a.data.size() * sizeof(double)) == 0;
}

/// Trains both modules `steps` steps from `state` on `inputs`, expecting
/// bitwise equal losses, norms and weights.
void expectSameTraining(Module &traced, Module &written, ref::TrainingState a,
                        const std::map<std::string, ref::Tensor> &inputs,
                        int steps) {
  ref::TrainingState b = a;
  auto hyperOf = [](Module &m) {
    auto entry = ref::lookupEntry(*m.module, "train");
    EXPECT_TRUE(mlir::succeeded(entry));
    auto hyper = ref::getCompiledHyper(*entry);
    EXPECT_TRUE(mlir::succeeded(hyper));
    return *hyper;
  };
  ref::TrainingHyper ha = hyperOf(traced), hb = hyperOf(written);
  for (int i = 0; i < steps; ++i) {
    auto ra = ref::trainStep(*traced.module, "train", inputs, a, ha);
    auto rb = ref::trainStep(*written.module, "train", inputs, b, hb);
    ASSERT_TRUE(mlir::succeeded(ra) && mlir::succeeded(rb)) << "step " << i;
    EXPECT_EQ(ra->loss, rb->loss) << "step " << i;
    EXPECT_EQ(ra->gradNorm, rb->gradNorm) << "step " << i;
    EXPECT_TRUE(ra->applied && rb->applied);
  }
  ASSERT_EQ(a.weights.size(), b.weights.size());
  for (const auto &[name, w] : a.weights)
    EXPECT_TRUE(bitwiseEqual(w, b.weights.at(name))) << name;
}

TEST(TracedWorkloads, PpoTrainsLikeTheHandWrittenModule) {
  Tracer t;
  ASSERT_TRUE(examples::tracePpo(t, 64).isOk());
  Module traced, written;
  ASSERT_TRUE(traced.load(llvm::MemoryBuffer::getMemBufferCopy(
      t.toMlir().value(), "traced-ppo.mlir")));
  ASSERT_TRUE(loadExample(written, "ppo_train.mlir"));

  // The hand-written module's weights have no initializers: both start
  // from the same random ones.
  ref::TrainingState state;
  uint64_t seed = 1;
  for (const char *layer : {"actor", "critic"})
    for (int i : {0, 2, 4}) {
      int64_t out = i < 4 ? 64 : (std::string(layer) == "actor" ? 8 : 1);
      std::string name = std::string(layer) + "." + std::to_string(i);
      state.weights[name + ".weight"] =
          ref::Tensor::of({out, 64}, values(out * 64, seed++, 0.125));
      state.weights[name + ".bias"] =
          ref::Tensor::of({out}, values(out, seed++, 0.125));
    }
  state.weights["log_std"] = ref::Tensor::of({8}, values(8, seed++, 0.5));
  std::map<std::string, ref::Tensor> inputs = {
      {"obs", ref::Tensor::of({64, 64}, values(64 * 64, 100, 1.0))},
      {"act", ref::Tensor::of({64, 8}, values(64 * 8, 101, 1.0))},
      {"adv", ref::Tensor::of({64}, values(64, 102, 1.0))},
      {"ret", ref::Tensor::of({64}, values(64, 103, 1.0))},
      {"old_logp", ref::Tensor::of({64}, values(64, 104, 1.0))}};
  expectSameTraining(traced, written, state, inputs, 3);
}

TEST(TracedWorkloads, MlpTrainsLikeTheHandWrittenModule) {
  Tracer t;
  ASSERT_TRUE(examples::traceMlp(t).isOk());
  Module traced, written;
  ASSERT_TRUE(traced.load(llvm::MemoryBuffer::getMemBufferCopy(
      t.toMlir().value(), "traced-mlp.mlir")));
  ASSERT_TRUE(loadExample(written, "mlp_train.mlir"));
  // Both declare nn.Linear's initializers with the same seeds: the
  // interpreter starts both from the same weights.
  ref::TrainingState state, written0;
  ASSERT_TRUE(mlir::succeeded(ref::initializeWeights(*traced.module, state)));
  ASSERT_TRUE(
      mlir::succeeded(ref::initializeWeights(*written.module, written0)));
  ASSERT_EQ(state.weights.size(), 6u);
  for (const auto &[name, w] : state.weights)
    EXPECT_TRUE(bitwiseEqual(w, written0.weights.at(name))) << name;

  std::vector<double> labels(128);
  for (int i = 0; i < 128; ++i)
    labels[i] = (i * 7) % 10;
  std::map<std::string, ref::Tensor> inputs = {
      {"x", ref::Tensor::of({128, 784}, values(128 * 784, 200, 1.0))},
      {"labels", ref::Tensor::of({128}, labels)}};
  expectSameTraining(traced, written, state, inputs, 2);
}

} // namespace
