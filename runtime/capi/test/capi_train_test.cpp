//===- capi_train_test.cpp - The C API on training entries ----------------===//
//
// The training module of runtime/test/train_module.h through capture.h: one
// step against the double-precision AdamW reference, a refused step and its
// own status code, the hyperparameter setters and the training functions'
// errors.
//
//===----------------------------------------------------------------------===//

#include "capi_fixture.h"
#include "train_module.h"

#include <cmath>
#include <limits>

using namespace capture::capi::test;
namespace rt = capture::rt;
namespace rtt = capture::rt::test;

namespace {

const std::vector<int64_t> kShape16 = {16};
const std::vector<int64_t> kScalar = {};

/// The training entry's outputs, as caller buffers.
struct StepOutputs {
  std::vector<float> loss = std::vector<float>(1, -7.0f);
  std::vector<float> gradNorm = std::vector<float>(1, -7.0f);
  std::vector<float> residual = std::vector<float>(16, -7.0f);
};

/// One step of entry "train" on input `x`.
capture_status step(capture_module *m, std::vector<float> x, StepOutputs &out) {
  capture_tensor_view in = f32View("x", kShape16, x);
  capture_tensor_view views[] = {f32View("loss", kScalar, out.loss),
                                 f32View("grad_norm", kScalar, out.gradNorm),
                                 f32View("residual", kShape16, out.residual)};
  return capture_module_run(m, "train", &in, 1, views, 3);
}

/// Reads `byte_size / 4` floats of weight `name`.
std::vector<float> param(capture_module *m, const char *name, size_t count) {
  std::vector<float> v(count);
  capture_status s =
      capture_module_get_param(m, name, v.data(), count * sizeof(float));
  EXPECT_EQ(s, nullptr) << takeMessage(s);
  return v;
}

/// Flat parameters (padding is zero, never written) and moments.
rtt::AdamWState readState(capture_module *m) {
  rtt::AdamWState s;
  s.p.assign(rtt::kTrainParams, 0.0f);
  std::vector<float> w1 = param(m, "w1", 6), w2 = param(m, "w2", 4);
  std::copy(w1.begin(), w1.end(), s.p.begin());
  std::copy(w2.begin(), w2.end(), s.p.begin() + 8);
  s.m.resize(rtt::kTrainParams);
  s.v.resize(rtt::kTrainParams);
  capture_status st =
      capture_module_read_moments(m, "train", s.m.data(), s.v.data(), 16 * 4);
  EXPECT_EQ(st, nullptr) << takeMessage(st);
  return s;
}

capture_train_state trainState(capture_module *m) {
  capture_train_state state{};
  capture_status s = capture_module_train_state(m, "train", &state);
  EXPECT_EQ(s, nullptr) << takeMessage(s);
  return state;
}

void expectClose(const std::vector<float> &got,
                 const std::vector<double> &expected, const char *what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::abs(double(got[i]) - expected[i]),
              1e-6 * std::abs(expected[i]))
        << what << "[" << i << "]: got " << got[i] << ", expected "
        << expected[i];
}

/// Runs one step and checks outputs, parameters, moments and t against the
/// reference step from the state before it.
void checkStep(capture_module *m, const std::vector<float> &x,
               const rt::AdamWDesc &adamw, uint64_t stepsDone) {
  rtt::AdamWState before = readState(m);
  rtt::StepReference ref =
      rtt::referenceStep(before, x, adamw, rtt::kTrainMaxGradNorm, stepsDone);
  StepOutputs out;
  CAPI_ASSERT_OK(step(m, x, out));
  expectClose(out.loss, {ref.loss}, "loss");
  expectClose(out.gradNorm, {ref.gradNorm}, "grad_norm");
  for (size_t i = 0; i < rtt::kTrainParams; ++i)
    EXPECT_EQ(out.residual[i], before.p[i] - x[i]) << i;
  rtt::AdamWState after = readState(m);
  expectClose(after.p, ref.p, "params");
  expectClose(after.m, ref.m, "m");
  expectClose(after.v, ref.v, "v");
  EXPECT_EQ(trainState(m).step, stepsDone + 1);
}

TEST_F(CapiTest, DescribesATrainEntry) {
  OwnedModule m = load(rtt::makeTrainModule(true));
  ASSERT_TRUE(m);
  int32_t kind = -1;
  CAPI_EXPECT_OK(capture_module_entry_kind(m.get(), "train", &kind));
  EXPECT_EQ(kind, CAPTURE_ENTRY_TRAIN);
  capture_tensor_info info{};
  std::vector<std::pair<std::string, uint32_t>> inputs;
  for (size_t i = 0; i < 3; ++i) {
    CAPI_EXPECT_OK(capture_module_input_info(m.get(), "train", i, &info));
    inputs.emplace_back(info.name, info.flags);
  }
  EXPECT_THAT(
      inputs,
      ::testing::ElementsAre(
          std::make_pair("x", 0u),
          std::make_pair("adamw", unsigned(CAPTURE_TENSOR_FILLED_BY_RUNTIME)),
          std::make_pair("max_grad_norm",
                         unsigned(CAPTURE_TENSOR_FILLED_BY_RUNTIME))));
  CAPI_EXPECT_OK(capture_module_output_info(m.get(), "train", 0, &info));
  EXPECT_STREQ(info.name, "loss");
  EXPECT_EQ(info.rank, 0);
  EXPECT_EQ(info.byte_size, 4u);
  CAPI_EXPECT_OK(capture_module_weight_info(m.get(), 2, &info));
  EXPECT_STREQ(info.name, "bias");
  EXPECT_EQ(info.flags, 0u);

  capture_train_state state = trainState(m.get());
  rt::AdamWDesc a = rtt::trainAdamW();
  EXPECT_EQ(state.step, 0u);
  EXPECT_EQ(state.refused_steps, 0u);
  EXPECT_EQ(state.adamw.lr, a.lr);
  EXPECT_EQ(state.adamw.beta2, a.beta2);
  EXPECT_EQ(state.adamw.weight_decay, a.weightDecay);
  EXPECT_EQ(state.clips, 1);
  EXPECT_EQ(state.max_grad_norm, rtt::kTrainMaxGradNorm);
  EXPECT_EQ(state.moment_count, rtt::kTrainParams);

  OwnedModule noclip = load(rtt::makeTrainModule(false));
  ASSERT_TRUE(noclip);
  state = trainState(noclip.get());
  EXPECT_EQ(state.clips, 0);
  EXPECT_EQ(state.max_grad_norm, 0.0f);
}

TEST_F(CapiTest, TrainStepsAreAdamW) {
  OwnedModule m = load(rtt::makeTrainModule(true));
  ASSERT_TRUE(m);
  checkStep(m.get(), rtt::trainInputX(), rtt::trainAdamW(), 0);
  checkStep(m.get(), rtt::trainInputX2(), rtt::trainAdamW(), 1);
}

TEST_F(CapiTest, RefusedStepHasItsOwnCode) {
  OwnedModule m = load(rtt::makeTrainModule(true));
  ASSERT_TRUE(m);
  checkStep(m.get(), rtt::trainInputX(), rtt::trainAdamW(), 0);
  rtt::AdamWState before = readState(m.get());
  std::vector<float> x = rtt::trainInputX();
  x[3] = std::numeric_limits<float>::quiet_NaN();
  StepOutputs out;
  EXPECT_THAT(error(step(m.get(), x, out)),
              isError(CAPTURE_STATUS_UPDATE_REFUSED,
                      {"capture_module_run: entry 'train': the gradient norm "
                       "'grad_norm' is nan",
                       "not applied", "(t = 1)"}));
  EXPECT_EQ(out.loss[0], -7.0f); // no output written
  EXPECT_EQ(out.residual, std::vector<float>(16, -7.0f));
  capture_train_state state = trainState(m.get());
  EXPECT_EQ(state.step, 1u);
  EXPECT_EQ(state.refused_steps, 1u);
  rtt::AdamWState after = readState(m.get());
  EXPECT_EQ(after.p, before.p);
  EXPECT_EQ(after.m, before.m);
  EXPECT_EQ(after.v, before.v);
  // The next step works as if the refused one had not happened.
  checkStep(m.get(), rtt::trainInputX2(), rtt::trainAdamW(), 1);
}

TEST_F(CapiTest, OtherTrainErrorsAreNotRefusals) {
  OwnedModule m = load(rtt::makeTrainModule(true));
  ASSERT_TRUE(m);
  std::vector<float> x = rtt::trainInputX(), hyper(7, 0.5f), limit(1, 1.0f);
  const std::vector<int64_t> shape7 = {7};
  capture_tensor_view in[] = {f32View("x", kShape16, x),
                              f32View("adamw", shape7, hyper)};
  EXPECT_THAT(error(capture_module_run(m.get(), "train", in, 2, nullptr, 0)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"input 'adamw' is filled by the runtime; set it with "
                       "capture_module_set_learning_rate"}));
  in[1] = f32View("max_grad_norm", kScalar, limit);
  EXPECT_THAT(error(capture_module_run(m.get(), "train", in, 2, nullptr, 0)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"capture_module_set_max_grad_norm"}));
  EXPECT_THAT(error(capture_module_run(m.get(), "train", in, 0, nullptr, 0)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"missing input 'x' [16] (f32)"}));
  // Unknown names list only the inputs the caller gives.
  in[1].name = "q";
  Error unknown =
      error(capture_module_run(m.get(), "train", in, 2, nullptr, 0));
  EXPECT_EQ(unknown.code, CAPTURE_STATUS_NOT_FOUND);
  EXPECT_THAT(unknown.message,
              ::testing::EndsWith("unknown input 'q'; expected inputs: 'x' "
                                  "[16] (f32)"));
  in[0].byte_size = 60;
  EXPECT_THAT(error(capture_module_run(m.get(), "train", in, 1, nullptr, 0)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"needs 64 bytes"}));
  capture_train_state state = trainState(m.get());
  EXPECT_EQ(state.step, 0u);
  EXPECT_EQ(state.refused_steps, 0u);
}

TEST_F(CapiTest, HyperparameterSetters) {
  OwnedModule m = load(rtt::makeTrainModule(true));
  ASSERT_TRUE(m);
  const capture_code bad = CAPTURE_STATUS_INVALID_ARGUMENT;
  rt::AdamWDesc a = rtt::trainAdamW();
  CAPI_ASSERT_OK(capture_module_set_learning_rate(m.get(), "train", 0.01f));
  a.lr = 0.01f;
  EXPECT_EQ(trainState(m.get()).adamw.lr, 0.01f);
  EXPECT_THAT(error(capture_module_set_learning_rate(m.get(), "train", -1.0f)),
              isError(bad, {"capture_module_set_learning_rate: ", "lr"}));
  EXPECT_THAT(error(capture_module_set_learning_rate(
                  m.get(), "train", std::numeric_limits<float>::quiet_NaN())),
              isError(bad, {"capture_module_set_learning_rate: "}));
  EXPECT_EQ(trainState(m.get()).adamw.lr, 0.01f);
  // Param group 0 is the entry's own; it has no other.
  CAPI_ASSERT_OK(
      capture_module_set_group_learning_rate(m.get(), "train", 0, 0.02f));
  EXPECT_EQ(trainState(m.get()).adamw.lr, 0.02f);
  EXPECT_THAT(
      error(capture_module_set_group_learning_rate(m.get(), "train", 1, 0.1f)),
      isError(bad, {"capture_module_set_group_learning_rate: ",
                    "has 1 param group, so group 1 does not exist"}));
  CAPI_ASSERT_OK(capture_module_set_learning_rate(m.get(), "train", 0.01f));

  capture_adamw wrong{0.1f, 1.0f, 0.999f, 1e-8f, 0.0f};
  EXPECT_THAT(error(capture_module_set_adamw(m.get(), "train", &wrong)),
              isError(bad, {"capture_module_set_adamw: ", "beta1"}));
  EXPECT_THAT(error(capture_module_set_adamw(m.get(), "train", nullptr)),
              isError(bad, {"capture_module_set_adamw: adamw is NULL"}));
  EXPECT_EQ(trainState(m.get()).adamw.beta1, a.beta1);

  CAPI_ASSERT_OK(capture_module_set_max_grad_norm(m.get(), "train", 100.0f));
  EXPECT_EQ(trainState(m.get()).max_grad_norm, 100.0f);
  EXPECT_THAT(error(capture_module_set_max_grad_norm(m.get(), "train", 0.0f)),
              isError(bad, {"capture_module_set_max_grad_norm: "}));
  CAPI_ASSERT_OK(capture_module_set_max_grad_norm(m.get(), "train",
                                                  rtt::kTrainMaxGradNorm));

  // The next steps use the new values, without re-recording.
  CAPI_ASSERT_OK(capture_module_set_train_step(m.get(), "train", 5));
  checkStep(m.get(), rtt::trainInputX(), a, 5);
  uint64_t records = 0;
  CAPI_EXPECT_OK(capture_module_record_count(m.get(), &records));
  EXPECT_EQ(records, 2u);

  OwnedModule noclip = load(rtt::makeTrainModule(false));
  ASSERT_TRUE(noclip);
  EXPECT_THAT(
      error(capture_module_set_max_grad_norm(noclip.get(), "train", 1.0f)),
      isError(bad, {"does not clip gradients"}));
}

TEST_F(CapiTest, SetAdamwKeepsTheCompiledWeightDecayMode) {
  // capture_adamw has no mode: on a module compiled for Adam's L2 weight
  // decay the values change and the mode stays (rt::Module::setAdamW would
  // refuse a switch to AdamW).
  rt::ModuleDesc desc = rtt::makeTrainModule(true);
  desc.entries[0].train->adamw.decoupled = false;
  OwnedModule m = load(desc);
  ASSERT_TRUE(m);
  capture_adamw adamw{0.1f, 0.9f, 0.999f, 1e-8f, 0.5f};
  CAPI_ASSERT_OK(capture_module_set_adamw(m.get(), "train", &adamw));
  EXPECT_EQ(trainState(m.get()).adamw.weight_decay, 0.5f);
}

TEST_F(CapiTest, TrainingFunctionsCheckTheirEntry) {
  OwnedModule m = load(rtt::makeTrainModule(true));
  ASSERT_TRUE(m);
  capture_train_state state;
  capture_adamw adamw{0.1f, 0.9f, 0.999f, 1e-8f, 0.0f};
  std::vector<float> mom(16), v(16);
  for (const char *entry : {"eval", "nope"}) {
    SCOPED_TRACE(entry);
    bool forward = std::string(entry) == "eval";
    capture_code code =
        forward ? CAPTURE_STATUS_INVALID_ARGUMENT : CAPTURE_STATUS_NOT_FOUND;
    std::string part = forward ? "entry 'eval' is a Forward entry, expected a "
                                 "Train entry"
                               : "unknown entry 'nope'";
    EXPECT_THAT(error(capture_module_set_learning_rate(m.get(), entry, 0.1f)),
                isError(code, {part}));
    EXPECT_THAT(error(capture_module_set_max_grad_norm(m.get(), entry, 1.0f)),
                isError(code, {part}));
    EXPECT_THAT(error(capture_module_set_adamw(m.get(), entry, &adamw)),
                isError(code, {part}));
    EXPECT_THAT(error(capture_module_set_train_step(m.get(), entry, 1)),
                isError(code, {part}));
    EXPECT_THAT(error(capture_module_train_state(m.get(), entry, &state)),
                isError(code, {part}));
    EXPECT_THAT(error(capture_module_read_moments(m.get(), entry, mom.data(),
                                                  v.data(), 64)),
                isError(code, {part}));
  }
  const capture_code bad = CAPTURE_STATUS_INVALID_ARGUMENT;
  EXPECT_THAT(error(capture_module_read_moments(m.get(), "train", mom.data(),
                                                v.data(), 32)),
              isError(bad, {"capture_module_read_moments: the first moment "
                            "of entry 'train' (m) needs a buffer of 64 bytes, "
                            "got 32"}));
  EXPECT_THAT(error(capture_module_read_moments(m.get(), "train", nullptr,
                                                v.data(), 64)),
              isError(bad, {"(m) has NULL data"}));
  EXPECT_THAT(error(capture_module_read_moments(m.get(), "train", mom.data(),
                                                nullptr, 64)),
              isError(bad, {"(v) has NULL data"}));
  EXPECT_THAT(error(capture_module_train_state(m.get(), "train", nullptr)),
              isError(bad, {"out is NULL"}));
}

} // namespace
