//===- capi_deferred_test.cpp - The C API's deferred runs -----------------===//
//
// capture_module_run_deferred and its handle: runs wait until a result is
// taken and then go in one submission, in order; a refused training step is
// its take's status; every misuse is an error naming the call.
//
//===----------------------------------------------------------------------===//

#include "capi_fixture.h"
#include "test_util.h"
#include "train_module.h"

#include <limits>

using namespace capture::capi::test;
namespace rtt = capture::rt::test;

namespace {

const std::vector<int64_t> kShape24 = {2, 4};
const std::vector<int64_t> kShape16 = {16};
const std::vector<int64_t> kScalar = {};

/// The handle's deleter.
struct DeferredDeleter {
  void operator()(capture_deferred *run) const {
    capture_deferred_release(run);
  }
};
using OwnedDeferred = std::unique_ptr<capture_deferred, DeferredDeleter>;

/// Defers predict on x and b.
OwnedDeferred deferPredict(capture_module *m, std::vector<float> x,
                           std::vector<float> b) {
  capture_tensor_view in[] = {f32View("x", kShape24, x),
                              f32View("b", kShape24, b)};
  capture_deferred *run = nullptr;
  capture_status s = capture_module_run_deferred(m, "predict", in, 2, &run);
  EXPECT_EQ(s, nullptr) << takeMessage(s);
  return OwnedDeferred(run);
}

/// Runs deferred on `device` and not submitted yet.
size_t waiting(const capture_device *device) {
  size_t n = 99;
  capture_status s = capture_device_deferred_count(device, &n);
  EXPECT_EQ(s, nullptr) << takeMessage(s);
  return n;
}

TEST_F(CapiTest, DeferredRunsGoTogetherWhenAResultIsTaken) {
  OwnedModule m = load(rtt::makeTestModule());
  ASSERT_TRUE(m);
  std::vector<float> x = rtt::inputX(), b = rtt::inputB(), x2 = x;
  for (float &v : x2)
    v *= 3.0f;
  OwnedDeferred first = deferPredict(m.get(), x, b);
  ASSERT_TRUE(first);
  // A second run of the same module submits the first (it holds the
  // module's staging): one waits.
  OwnedDeferred second = deferPredict(m.get(), x2, b);
  ASSERT_TRUE(second);
  EXPECT_EQ(waiting(device), 1u);
  EXPECT_EQ(capture_deferred_done(first.get()), 1);
  EXPECT_EQ(capture_deferred_done(second.get()), 0);
  std::vector<float> y(8, -1.0f), z(8, -1.0f), y2(8, -1.0f);
  capture_tensor_view out[] = {f32View("y", kShape24, y),
                               f32View("z", kShape24, z)};
  CAPI_ASSERT_OK(capture_deferred_take(first.get(), out, 2));
  std::vector<float> w = rtt::initialWeights();
  EXPECT_EQ(y, rtt::expectY(x, b, w));
  EXPECT_EQ(z, rtt::expectZ(x, w));
  // A bad view keeps the result for another take.
  capture_tensor_view wrong = f32View("y", kShape16, y2);
  EXPECT_THAT(error(capture_deferred_take(second.get(), &wrong, 1)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"capture_deferred_take: ", "'y'"}));
  capture_tensor_view y2View = f32View("y", kShape24, y2);
  CAPI_ASSERT_OK(capture_deferred_take(second.get(), &y2View, 1));
  EXPECT_EQ(y2, rtt::expectY(x2, b, w));
  EXPECT_EQ(waiting(device), 0u);
  EXPECT_THAT(error(capture_deferred_take(second.get(), &y2View, 1)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"capture_deferred_take: the deferred run of entry "
                       "'predict' was taken already"}));

  // Two modules: both wait, and submit_deferred sends them in one go.
  OwnedModule other = load(rtt::makeTestModule());
  ASSERT_TRUE(other);
  OwnedDeferred a = deferPredict(m.get(), x, b);
  OwnedDeferred c = deferPredict(other.get(), x2, b);
  EXPECT_EQ(waiting(device), 2u);
  CAPI_ASSERT_OK(capture_device_submit_deferred(device));
  EXPECT_EQ(waiting(device), 0u);
  EXPECT_EQ(capture_deferred_done(a.get()), 1);
  EXPECT_EQ(capture_deferred_done(c.get()), 1);
  CAPI_ASSERT_OK(capture_deferred_take(c.get(), &y2View, 1));
  EXPECT_EQ(y2, rtt::expectY(x2, b, w));
  // `a` is released without a take: its result is dropped.
}

TEST_F(CapiTest, ARefusedDeferredStepIsItsTakesStatus) {
  OwnedModule m = load(rtt::makeTrainModule(true));
  ASSERT_TRUE(m);
  std::vector<float> x = rtt::trainInputX();
  x[3] = std::numeric_limits<float>::quiet_NaN();
  capture_tensor_view in = f32View("x", kShape16, x);
  capture_deferred *raw = nullptr;
  CAPI_ASSERT_OK(capture_module_run_deferred(m.get(), "train", &in, 1, &raw));
  OwnedDeferred run(raw);
  std::vector<float> loss(1, -7.0f);
  capture_tensor_view out = f32View("loss", kScalar, loss);
  EXPECT_THAT(error(capture_deferred_take(run.get(), &out, 1)),
              isError(CAPTURE_STATUS_UPDATE_REFUSED,
                      {"capture_deferred_take: entry 'train': the gradient "
                       "norm 'grad_norm' is nan",
                       "not applied"}));
  EXPECT_EQ(loss[0], -7.0f); // no output written
}

TEST_F(CapiTest, DeferredRunMisuseIsNamed) {
  OwnedModule m = load(rtt::makeTestModule());
  ASSERT_TRUE(m);
  capture_deferred *run = reinterpret_cast<capture_deferred *>(1);
  EXPECT_THAT(
      error(capture_module_run_deferred(m.get(), "predict", nullptr, 0, &run)),
      isError(CAPTURE_STATUS_INVALID_ARGUMENT,
              {"capture_module_run_deferred: entry 'predict': missing inputs "
               "'x'"}));
  EXPECT_EQ(run, nullptr);
  EXPECT_THAT(
      error(capture_module_run_deferred(m.get(), "nope", nullptr, 0, &run)),
      isError(CAPTURE_STATUS_NOT_FOUND, {"unknown entry 'nope'"}));
  EXPECT_THAT(error(capture_module_run_deferred(m.get(), "predict", nullptr, 0,
                                                nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"out_run is NULL"}));
  EXPECT_THAT(error(capture_deferred_take(nullptr, nullptr, 0)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"run is NULL"}));
  EXPECT_THAT(error(capture_device_submit_deferred(nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"device is NULL"}));
  size_t n = 0;
  EXPECT_THAT(error(capture_device_deferred_count(device, nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"out_count is NULL"}));
  EXPECT_THAT(error(capture_device_deferred_count(nullptr, &n)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"device is NULL"}));
  EXPECT_EQ(capture_deferred_done(nullptr), 0);
  capture_deferred_release(nullptr);
}

} // namespace
