//===- capi_train_step_test.cpp - The C API's training-step handles -------===//
//
// capture_train_step_* on the training module of runtime/test/train_module.h:
// the handle trains exactly as capture_module_run on the entry name, keeps
// its module alive, restores a saved optimizer state bitwise, and its errors
// name the handle's functions.
//
//===----------------------------------------------------------------------===//

#include "capi_fixture.h"
#include "test_util.h"
#include "train_module.h"

#include <cstring>
#include <limits>

using namespace capture::capi::test;
namespace rtt = capture::rt::test;

namespace {

const std::vector<int64_t> kShape16 = {16};
const std::vector<int64_t> kScalar = {};

struct StepDeleter {
  void operator()(capture_train_step *s) const { capture_train_step_close(s); }
};
using OwnedStep = std::unique_ptr<capture_train_step, StepDeleter>;

/// One step through the handle: {loss, grad_norm}.
std::vector<float> stepOnce(capture_train_step *step, std::vector<float> x) {
  std::vector<float> loss(1, -7.0f), norm(1, -7.0f);
  capture_tensor_view in = f32View("x", kShape16, x);
  capture_tensor_view out[] = {f32View("loss", kScalar, loss),
                               f32View("grad_norm", kScalar, norm)};
  capture_status s = capture_train_step_run(step, &in, 1, out, 2);
  EXPECT_EQ(s, nullptr) << takeMessage(s);
  return {loss[0], norm[0]};
}

/// The same step by entry name.
std::vector<float> stepByName(capture_module *m, std::vector<float> x) {
  std::vector<float> loss(1, -7.0f), norm(1, -7.0f);
  capture_tensor_view in = f32View("x", kShape16, x);
  capture_tensor_view out[] = {f32View("loss", kScalar, loss),
                               f32View("grad_norm", kScalar, norm)};
  capture_status s = capture_module_run(m, "train", &in, 1, out, 2);
  EXPECT_EQ(s, nullptr) << takeMessage(s);
  return {loss[0], norm[0]};
}

OwnedStep open(capture_module *m) {
  capture_train_step *step = nullptr;
  capture_status s = capture_train_step_open(m, "train", &step);
  EXPECT_EQ(s, nullptr) << takeMessage(s);
  return OwnedStep(step);
}

std::vector<float> params(capture_module *m) {
  std::vector<float> w(6 + 4);
  capture_status s = capture_module_get_param(m, "w1", w.data(), 6 * 4);
  EXPECT_EQ(s, nullptr) << takeMessage(s);
  s = capture_module_get_param(m, "w2", w.data() + 6, 4 * 4);
  EXPECT_EQ(s, nullptr) << takeMessage(s);
  return w;
}

TEST_F(CapiTest, TrainStepHandleTrainsAsTheEntryName) {
  OwnedModule byHandle = load(rtt::makeTrainModule(true));
  OwnedModule byName = load(rtt::makeTrainModule(true));
  ASSERT_TRUE(byHandle && byName);
  OwnedStep step = open(byHandle.get());
  ASSERT_TRUE(step);
  for (int k = 0; k < 3; ++k) {
    std::vector<float> x = k % 2 ? rtt::trainInputX2() : rtt::trainInputX();
    EXPECT_EQ(stepOnce(step.get(), x), stepByName(byName.get(), x)) << k;
  }
  EXPECT_EQ(params(byHandle.get()), params(byName.get()));
  // Hyperparameters through the handle are the entry's.
  CAPI_ASSERT_OK(capture_train_step_set_learning_rate(step.get(), 0.25f));
  CAPI_ASSERT_OK(capture_train_step_set_max_grad_norm(step.get(), 0.5f));
  capture_train_state state{};
  CAPI_ASSERT_OK(capture_train_step_state(step.get(), &state));
  EXPECT_EQ(state.step, 3u);
  EXPECT_EQ(state.adamw.lr, 0.25f);
  EXPECT_EQ(state.max_grad_norm, 0.5f);
  capture_train_state byNameState{};
  CAPI_ASSERT_OK(
      capture_module_train_state(byHandle.get(), "train", &byNameState));
  EXPECT_EQ(byNameState.adamw.lr, 0.25f);
  capture_adamw adamw = state.adamw;
  adamw.weight_decay = 0.0f;
  CAPI_ASSERT_OK(capture_train_step_set_adamw(step.get(), &adamw));
  CAPI_ASSERT_OK(capture_train_step_state(step.get(), &state));
  EXPECT_EQ(state.adamw.weight_decay, 0.0f);
  std::vector<float> g(rtt::kTrainParams);
  CAPI_ASSERT_OK(
      capture_train_step_read_gradients(step.get(), g.data(), g.size() * 4));
  CAPI_ASSERT_OK(capture_train_step_reset_optimizer(step.get()));
  CAPI_ASSERT_OK(capture_train_step_state(step.get(), &state));
  EXPECT_EQ(state.step, 0u);
}

TEST_F(CapiTest, TrainStepHandleRestoresTheOptimizerBitwise) {
  OwnedModule straight = load(rtt::makeTrainModule(true));
  ASSERT_TRUE(straight);
  OwnedStep s1 = open(straight.get());
  stepOnce(s1.get(), rtt::trainInputX());
  stepOnce(s1.get(), rtt::trainInputX2());
  // Save what a resume needs: weights, both moments, t.
  std::vector<float> w = params(straight.get());
  std::vector<float> m(rtt::kTrainParams), v(rtt::kTrainParams);
  CAPI_ASSERT_OK(capture_train_step_read_moments(s1.get(), m.data(), v.data(),
                                                 m.size() * 4));
  capture_train_state saved{};
  CAPI_ASSERT_OK(capture_train_step_state(s1.get(), &saved));
  std::vector<float> third = stepOnce(s1.get(), rtt::trainInputX());

  OwnedModule resumed = load(rtt::makeTrainModule(true));
  ASSERT_TRUE(resumed);
  OwnedStep s2 = open(resumed.get());
  std::vector<float> w1(w.begin(), w.begin() + 6), w2(w.begin() + 6, w.end());
  const std::vector<int64_t> shape23 = {2, 3}, shape4 = {4};
  capture_tensor_view v1 = f32View("w1", shape23, w1);
  capture_tensor_view v2 = f32View("w2", shape4, w2);
  CAPI_ASSERT_OK(capture_module_set_param(resumed.get(), &v1));
  CAPI_ASSERT_OK(capture_module_set_param(resumed.get(), &v2));
  // A wrong-sized buffer changes nothing, t included.
  Error bad = error(capture_train_step_restore_optimizer(
      s2.get(), m.data(), v.data(), 8, saved.step));
  EXPECT_THAT(bad, isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                           {"capture_train_step_restore_optimizer: "}));
  capture_train_state state{};
  CAPI_ASSERT_OK(capture_train_step_state(s2.get(), &state));
  EXPECT_EQ(state.step, 0u);
  CAPI_ASSERT_OK(capture_train_step_restore_optimizer(
      s2.get(), m.data(), v.data(), m.size() * 4, saved.step));
  std::vector<float> again = stepOnce(s2.get(), rtt::trainInputX());
  EXPECT_EQ(std::memcmp(again.data(), third.data(), 8), 0);
  EXPECT_EQ(params(resumed.get()), params(straight.get()));
}

TEST_F(CapiTest, TrainStepHandleOutlivesItsModuleAndNamesItsErrors) {
  OwnedModule m = load(rtt::makeTrainModule(true));
  ASSERT_TRUE(m);
  capture_train_step *step = nullptr;
  EXPECT_THAT(error(capture_train_step_open(m.get(), "trian", &step)),
              isError(CAPTURE_STATUS_NOT_FOUND,
                      {"capture_train_step_open: ", "'trian'", "'train'"}));
  EXPECT_THAT(error(capture_train_step_open(m.get(), "train", nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"out"}));
  OwnedModule forward = load(rtt::makeTestModule());
  ASSERT_TRUE(forward);
  EXPECT_THAT(error(capture_train_step_open(forward.get(), "predict", &step)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"capture_train_step_open: ", "'predict'"}));
  EXPECT_EQ(step, nullptr);
  OwnedStep owned = open(m.get());
  m.reset(); // the handle keeps the module
  std::vector<float> first = stepOnce(owned.get(), rtt::trainInputX());
  EXPECT_GT(first[1], 0.0f);
  std::vector<float> x = rtt::trainInputX();
  x[0] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> loss(1, -7.0f);
  capture_tensor_view in = f32View("x", kShape16, x);
  capture_tensor_view out = f32View("loss", kScalar, loss);
  EXPECT_THAT(error(capture_train_step_run(owned.get(), &in, 1, &out, 1)),
              isError(CAPTURE_STATUS_UPDATE_REFUSED,
                      {"capture_train_step_run: entry 'train'"}));
  EXPECT_EQ(loss[0], -7.0f);
  EXPECT_THAT(error(capture_train_step_set_learning_rate(owned.get(), -1.0f)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"capture_train_step_set_learning_rate: "}));
  EXPECT_THAT(error(capture_train_step_run(nullptr, &in, 1, nullptr, 0)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"capture_train_step_run: ", "step"}));
  capture_train_step_close(nullptr);
}

} // namespace
