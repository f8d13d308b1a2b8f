//===- capmod_train_test.cpp - Reading and verifying training entries -----===//
//
// Each rejection test breaks one field of the valid training module of
// train_module.h and checks that the message names that field. Every module
// goes through writeCapmod and readCapmod, so the reader and the writer of
// each field are exercised too.
//
//===----------------------------------------------------------------------===//

#include "capmod_checksum.h"
#include "capmod_generated.h"
#include "capture/rt/capmod.h"
#include "read_error.h"
#include "train_module.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

TrainDesc &trainOf(ModuleDesc &m) { return *m.entries[0].train; }

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(CapmodTrain, RoundTrip) {
  for (bool clip : {true, false}) {
    ModuleDesc desc = makeTrainModule(clip);
    std::vector<uint8_t> bytes = writeCapmod(desc);
    Result<ModuleDesc> r = readCapmod(bytes.data(), bytes.size());
    ASSERT_TRUE(r.isOk()) << r.message();
    const ModuleDesc &back = r.value();
    EXPECT_EQ(back.formatVersion, kCapmodFormatVersion);
    EXPECT_EQ(back.buffers[kTrainOptimizer].kind, BufferKind::Optimizer);
    const EntryDesc &e = back.entries[0];
    EXPECT_EQ(e.kind, EntryKind::Train);
    EXPECT_EQ(back.entries[1].kind, EntryKind::Forward);
    EXPECT_FALSE(back.entries[1].train.has_value());
    ASSERT_TRUE(e.train.has_value());
    const TrainDesc &t = *e.train;
    AdamWDesc a = trainAdamW();
    EXPECT_EQ(t.adamw.lr, a.lr);
    EXPECT_EQ(t.adamw.beta1, a.beta1);
    EXPECT_EQ(t.adamw.beta2, a.beta2);
    EXPECT_EQ(t.adamw.eps, a.eps);
    EXPECT_EQ(t.adamw.weightDecay, a.weightDecay);
    EXPECT_TRUE(t.adamw.decoupled);
    EXPECT_EQ(t.maxGradNorm,
              clip ? std::optional<float>(kTrainMaxGradNorm) : std::nullopt);
    EXPECT_EQ(t.hyperInput, "adamw");
    EXPECT_EQ(t.maxGradNormInput, clip ? "max_grad_norm" : "");
    EXPECT_EQ(t.gradNormOutput, "grad_norm");
    EXPECT_EQ(t.params.buffer, uint32_t(kTrainWeights));
    EXPECT_EQ(t.params.size, 64u);
    EXPECT_EQ(t.moment1.buffer, uint32_t(kTrainOptimizer));
    EXPECT_EQ(t.moment1.offset, 256u);
    EXPECT_EQ(t.moment2.offset, 512u);
    EXPECT_EQ(t.moment2.size, 64u);
    // A second round trip gives the same bytes: nothing was lost.
    EXPECT_EQ(writeCapmod(back), bytes);
  }
}

TEST(CapmodTrain, DecoupledRoundTripsAndIsTrueInOlderFiles) {
  namespace fb = capture::capmod;
  // The AdamW table of `bytes` as flatbuffers reads it (a Table: its
  // vtable says which fields the file has).
  auto adamwTable = [](std::vector<uint8_t> &bytes) {
    const fb::AdamW *a =
        fb::GetModule(bytes.data())->entries()->Get(0)->train()->adamw();
    return reinterpret_cast<const flatbuffers::Table *>(a);
  };
  auto readDecoupled = [](const std::vector<uint8_t> &bytes) {
    Result<ModuleDesc> r = readCapmod(bytes.data(), bytes.size());
    EXPECT_TRUE(r.isOk()) << r.message();
    return r.isOk() && r.value().entries[0].train->adamw.decoupled;
  };

  ModuleDesc desc = makeTrainModule(true);
  trainOf(desc).adamw.decoupled = false;
  std::vector<uint8_t> bytes = writeCapmod(desc);
  EXPECT_FALSE(readDecoupled(bytes));
  ASSERT_NE(adamwTable(bytes)->GetOptionalFieldOffset(fb::AdamW::VT_DECOUPLED),
            0);

  // A file from before the field: the same bytes with the field's vtable
  // slot empty (resealed) read as AdamW.
  std::vector<uint8_t> old(bytes.begin(), bytes.end() - kCapmodTrailerBytes);
  const uint8_t *vtable = adamwTable(old)->GetVTable();
  size_t slot = vtable - old.data() + fb::AdamW::VT_DECOUPLED;
  old[slot] = old[slot + 1] = 0;
  ASSERT_EQ(adamwTable(old)->GetOptionalFieldOffset(fb::AdamW::VT_DECOUPLED),
            0);
  appendCapmodChecksum(old);
  EXPECT_TRUE(readDecoupled(old));

  // The default is not written, so a decoupled module's table is exactly
  // what writers from before the field wrote.
  std::vector<uint8_t> adamw = writeCapmod(makeTrainModule(true));
  EXPECT_EQ(adamwTable(adamw)->GetOptionalFieldOffset(fb::AdamW::VT_DECOUPLED),
            0);
  EXPECT_TRUE(readDecoupled(adamw));
}

TEST(CapmodTrain, FormatVersion1IsRejected) {
  ModuleDesc desc = makeTrainModule(true);
  desc.formatVersion = 1;
  EXPECT_THAT(readError(desc),
              AllOf(HasSubstr("unsupported format_version 1"),
                    HasSubstr("reads format_version " +
                              std::to_string(kCapmodFormatVersion))));
}

TEST(CapmodTrain, KindAndTrainTableAgree) {
  ModuleDesc desc = makeTrainModule(true);
  desc.entries[0].train.reset();
  EXPECT_THAT(readError(desc),
              HasSubstr("entry 'train' has kind Train but no train table"));
  desc = makeTrainModule(true);
  desc.entries[1].train = desc.entries[0].train;
  EXPECT_THAT(readError(desc),
              HasSubstr("entry 'eval' has kind Forward and a train table, "
                        "expected a train table only on a Train entry"));
  desc = makeTrainModule(true);
  desc.entries[0].kind = static_cast<EntryKind>(7);
  EXPECT_THAT(readError(desc),
              HasSubstr("entry 'train' has kind 7, expected Forward (0) or "
                        "Train (1)"));
}

TEST(CapmodTrain, OptimizerBuffers) {
  ModuleDesc desc = makeTrainModule(true);
  desc.buffers[kTrainOptimizer].size = 766;
  EXPECT_THAT(readError(desc),
              HasSubstr("buffer 3 (Optimizer) has size 766, expected a "
                        "multiple of 4"));
  desc = makeTrainModule(true);
  desc.buffers[kTrainOptimizer].kind = static_cast<BufferKind>(6);
  EXPECT_THAT(readError(desc),
              HasSubstr("buffer 3 has kind 6, expected Input (0), Output (1), "
                        "Weights (2), Constants (3), Scratch (4) or "
                        "Optimizer (5)"));
}

TEST(CapmodTrain, HyperInput) {
  ModuleDesc desc = makeTrainModule(true);
  trainOf(desc).hyperInput = "";
  EXPECT_THAT(readError(desc),
              HasSubstr("entry 'train': train.hyper_input is empty, expected "
                        "the name of the [7] (f32) input"));
  desc = makeTrainModule(true);
  trainOf(desc).hyperInput = "nope";
  EXPECT_THAT(readError(desc),
              HasSubstr("train.hyper_input is 'nope', but the entry has no "
                        "input of that name; its inputs: 'x', 'adamw', "
                        "'max_grad_norm'"));
  desc = makeTrainModule(true);
  desc.entries[0].inputs[1].shape = {8};
  desc.entries[0].inputs[1].size = 32;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.hyper_input names input 'adamw' [8] (f32), "
                        "expected [7] (f32)"));
  desc = makeTrainModule(true);
  desc.entries[0].inputs[1].dtype = DType::I32;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.hyper_input names input 'adamw' [7] (i32), "
                        "expected [7] (f32)"));
  desc = makeTrainModule(true);
  trainOf(desc).hyperInput = "residual"; // an output, not an input
  EXPECT_THAT(readError(desc),
              HasSubstr("train.hyper_input is 'residual', but the entry has "
                        "no input of that name"));
}

// Param groups after the first round-trip; the hyperparameter input then
// holds seven values per group, every group is checked as adamw is, and all
// share its weight-decay mode.
TEST(CapmodTrain, ParamGroups) {
  ModuleDesc desc = makeTrainModule(true);
  AdamWDesc group = trainAdamW();
  group.lr = 0.5f;
  trainOf(desc).groups = {group};
  EXPECT_THAT(readError(desc),
              HasSubstr("train.hyper_input names input 'adamw' [7] (f32), "
                        "expected [14] (f32)"));
  desc.entries[0].inputs[1].shape = {14};
  desc.entries[0].inputs[1].size = 56;
  std::vector<uint8_t> bytes = writeCapmod(desc);
  Result<ModuleDesc> r = readCapmod(bytes.data(), bytes.size());
  ASSERT_TRUE(r.isOk()) << r.message();
  ASSERT_EQ(trainOf(r.value()).groups.size(), 1u);
  EXPECT_EQ(trainOf(r.value()).groups[0].lr, 0.5f);
  EXPECT_EQ(writeCapmod(r.value()), bytes);

  ModuleDesc bad = desc;
  trainOf(bad).groups[0].beta1 = 1.0f;
  EXPECT_THAT(readError(bad), HasSubstr("train.groups[0].beta1"));
  bad = desc;
  trainOf(bad).groups[0].decoupled = false;
  EXPECT_THAT(readError(bad),
              HasSubstr("train.groups[0].decoupled differs from "
                        "train.adamw.decoupled"));
}

TEST(CapmodTrain, MaxGradNormInput) {
  ModuleDesc desc = makeTrainModule(true);
  trainOf(desc).maxGradNormInput = "";
  EXPECT_THAT(readError(desc),
              HasSubstr("train.max_grad_norm_input is empty, expected the "
                        "name of the [] (f32) input"));
  desc = makeTrainModule(true);
  desc.entries[0].inputs[2].shape = {1};
  EXPECT_THAT(readError(desc),
              HasSubstr("train.max_grad_norm_input names input "
                        "'max_grad_norm' [1] (f32), expected [] (f32)"));
  desc = makeTrainModule(true);
  trainOf(desc).maxGradNorm.reset();
  EXPECT_THAT(readError(desc),
              HasSubstr("train.max_grad_norm_input is 'max_grad_norm', but "
                        "train.max_grad_norm is absent (the step does not "
                        "clip); expected no max_grad_norm_input"));
  desc = makeTrainModule(false);
  trainOf(desc).maxGradNorm = 1.0f;
  EXPECT_THAT(readError(desc), HasSubstr("train.max_grad_norm_input is empty"));
}

TEST(CapmodTrain, GradNormOutputAndLoss) {
  ModuleDesc desc = makeTrainModule(true);
  trainOf(desc).gradNormOutput = "";
  EXPECT_THAT(readError(desc),
              HasSubstr("train.grad_norm_output is empty, expected the name "
                        "of the [] (f32) output"));
  desc = makeTrainModule(true);
  trainOf(desc).gradNormOutput = "norm";
  EXPECT_THAT(readError(desc),
              HasSubstr("train.grad_norm_output is 'norm', but the entry has "
                        "no output of that name; its outputs: 'loss', "
                        "'grad_norm', 'residual'"));
  desc = makeTrainModule(true);
  trainOf(desc).gradNormOutput = "residual";
  EXPECT_THAT(readError(desc),
              HasSubstr("train.grad_norm_output names output 'residual' [16] "
                        "(f32), expected [] (f32)"));
  desc = makeTrainModule(true);
  std::swap(desc.entries[0].outputs[0], desc.entries[0].outputs[2]);
  EXPECT_THAT(readError(desc),
              HasSubstr("output 0 of a Train entry is its loss, expected a "
                        "[] (f32) output other than train.grad_norm_output, "
                        "found 'residual' [16] (f32)"));
  desc = makeTrainModule(true);
  std::swap(desc.entries[0].outputs[0], desc.entries[0].outputs[1]);
  EXPECT_THAT(readError(desc), HasSubstr("found 'grad_norm' [] (f32)"));
}

TEST(CapmodTrain, ParamsRange) {
  ModuleDesc desc = makeTrainModule(true);
  trainOf(desc).params.buffer = kTrainOptimizer;
  EXPECT_THAT(readError(desc),
              HasSubstr("entry 'train': train.params is in buffer 3 "
                        "(Optimizer, 768 bytes), expected the Weights buffer "
                        "2"));
  desc = makeTrainModule(true);
  trainOf(desc).params.buffer = 99;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.params: buffer index 99 out of range (module "
                        "has 7 buffers)"));
  desc = makeTrainModule(true);
  trainOf(desc).params.size = 0;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.params has size 0 bytes, expected a positive "
                        "multiple of 4"));
  desc = makeTrainModule(true);
  trainOf(desc).params.size = 62;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.params has size 62 bytes, expected a positive "
                        "multiple of 4"));
  desc = makeTrainModule(true);
  trainOf(desc).params.offset = 32;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.params offset 32 is not a multiple of "
                        "target.binding_alignment 256"));
  desc = makeTrainModule(true);
  trainOf(desc).params = {kTrainWeights, 256, 512};
  EXPECT_THAT(readError(desc),
              HasSubstr("train.params range [256, 768) exceeds buffer 2 "
                        "(Weights, 512 bytes)"));
}

TEST(CapmodTrain, WeightsInsideParams) {
  ModuleDesc desc = makeTrainModule(true);
  trainOf(desc).params.size = 40;
  EXPECT_THAT(readError(desc),
              HasSubstr("weight 'w2' [32, 48) lies partly outside "
                        "train.params [0, 40), expected each weight wholly "
                        "inside or wholly outside"));
  desc = makeTrainModule(true);
  desc.weights[1].trainable = false;
  EXPECT_THAT(readError(desc),
              HasSubstr("weight 'w2' [32, 48) lies inside train.params "
                        "[0, 64) but is not trainable"));
  desc = makeTrainModule(true);
  desc.weights[0].dtype = DType::I32;
  EXPECT_THAT(readError(desc),
              HasSubstr("weight 'w1' [0, 24) lies inside train.params "
                        "[0, 64) but is i32, expected f32"));
}

TEST(CapmodTrain, Moments) {
  ModuleDesc desc = makeTrainModule(true);
  trainOf(desc).moment1.buffer = kTrainOutput;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.moment1 is in buffer 1 (Output, 768 bytes), "
                        "expected a buffer of kind Optimizer"));
  desc = makeTrainModule(true);
  trainOf(desc).moment2.buffer = 42;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.moment2: buffer index 42 out of range"));
  desc = makeTrainModule(true);
  trainOf(desc).moment2.size = 128;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.moment2 has size 128 bytes, expected 64 (the "
                        "size of train.params)"));
  desc = makeTrainModule(true);
  trainOf(desc).moment1.offset = 260;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.moment1 offset 260 is not a multiple of "
                        "target.binding_alignment 256"));
  desc = makeTrainModule(true);
  trainOf(desc).moment2.offset = 768;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.moment2 range [768, 832) exceeds buffer 3 "
                        "(Optimizer, 768 bytes)"));
  desc = makeTrainModule(true);
  trainOf(desc).moment2 = trainOf(desc).moment1;
  EXPECT_THAT(readError(desc),
              HasSubstr("train.moment1 [256, 320) and train.moment2 [256, "
                        "320) overlap in buffer 3 (Optimizer, 768 bytes)"));
}

/// One hyperparameter set to a bad value and the message it must give.
struct BadHyper {
  const char *field;    // as the message names it
  float value;          // the bad value
  const char *expected; // what the message says is expected
};

TEST(CapmodTrain, Hyperparameters) {
  const BadHyper cases[] = {
      {"lr", -1.0f, "-1, expected a finite value >= 0"},
      {"lr", kInf, "inf, expected a finite value >= 0"},
      {"lr", kNaN, "nan, expected a finite value >= 0"},
      {"beta1", 1.0f, "1, expected a value in [0, 1)"},
      {"beta1", -0.5f, "-0.5, expected a value in [0, 1)"},
      {"beta2", 1.5f, "1.5, expected a value in [0, 1)"},
      {"beta2", kNaN, "nan, expected a value in [0, 1)"},
      {"eps", 0.0f, "0, expected a finite value > 0"},
      {"eps", -1e-8f, "-9.99999994e-09, expected a finite value > 0"},
      {"eps", kInf, "inf, expected a finite value > 0"},
      {"weight_decay", -0.25f, "-0.25, expected a finite value >= 0"},
      {"weight_decay", -kInf, "-inf, expected a finite value >= 0"},
  };
  for (const BadHyper &c : cases) {
    ModuleDesc desc = makeTrainModule(true);
    AdamWDesc &a = trainOf(desc).adamw;
    std::string field = c.field;
    float &slot = field == "lr"      ? a.lr
                  : field == "beta1" ? a.beta1
                  : field == "beta2" ? a.beta2
                  : field == "eps"   ? a.eps
                                     : a.weightDecay;
    slot = c.value;
    EXPECT_THAT(readError(desc), HasSubstr("entry 'train': train.adamw." +
                                           field + " is " + c.expected))
        << field << " = " << c.value;
  }
  for (float bad : {0.0f, -1.0f, kNaN, kInf}) {
    ModuleDesc desc = makeTrainModule(true);
    trainOf(desc).maxGradNorm = bad;
    EXPECT_THAT(readError(desc),
                AllOf(HasSubstr("entry 'train': train.max_grad_norm is "),
                      HasSubstr("expected a finite value > 0")))
        << bad;
  }
}

TEST(CapmodTrain, BoundaryHyperparametersAreAccepted) {
  ModuleDesc desc = makeTrainModule(true);
  trainOf(desc).adamw = {0.0f, 0.0f, 0.0f, 1e-30f, 0.0f};
  trainOf(desc).maxGradNorm = 1e-30f;
  EXPECT_TRUE(verifyModuleDesc(desc).isOk())
      << verifyModuleDesc(desc).message();
  EXPECT_TRUE(checkAdamW({1e3f, 0.999999f, 0.999999f, 1.0f, 1e3f}).isOk());
  EXPECT_TRUE(checkMaxGradNorm(1e30f).isOk());
  EXPECT_THAT(checkMaxGradNorm(-kInf).message(),
              HasSubstr("max_grad_norm is -inf, expected a finite value > 0"));
}

} // namespace
