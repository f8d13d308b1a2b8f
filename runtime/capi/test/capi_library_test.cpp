//===- capi_library_test.cpp - C API: weights at once, gradients, probes --===//

#include "capi_fixture.h"
#include "test_util.h"
#include "train_module.h"

#include <cstring>

using namespace capture::capi::test;
namespace rt = capture::rt;
namespace rtt = capture::rt::test;
using ::testing::HasSubstr;

namespace {

const std::vector<int64_t> kShape16 = {16};
const std::vector<int64_t> kScalar = {};

capture_status trainStep(capture_module *m, std::vector<float> x) {
  capture_tensor_view in = f32View("x", kShape16, x);
  return capture_module_run(m, "train", &in, 1, nullptr, 0);
}

TEST_F(CapiTest, SetParamsAndGetParams) {
  OwnedModule m = load(rtt::makeTrainModule(false));
  ASSERT_TRUE(m);
  std::vector<float> w1 = {1, 2, 3, 4, 5, 6}, w2 = {7, 8, 9, 10},
                     bias = {-1, -2, -3, -4};
  std::vector<int64_t> s23 = {2, 3}, s4 = {4};
  capture_tensor_view all[] = {f32View("w1", s23, w1), f32View("w2", s4, w2),
                               f32View("bias", s4, bias)};
  // Missing one without partial: refused, nothing changed.
  EXPECT_THAT(
      error(capture_module_set_params(m.get(), all, 2, 0)),
      isError(CAPTURE_STATUS_INVALID_ARGUMENT,
              {"capture_module_set_params", "missing parameter 'bias'"}));
  capture_tensor_view unknown = f32View("w9", s4, w2);
  EXPECT_THAT(error(capture_module_set_params(m.get(), &unknown, 1, 1)),
              isError(CAPTURE_STATUS_NOT_FOUND, {"'w9'"}));
  std::vector<float> got1(6), got2(4);
  capture_tensor_view out[] = {f32View("w1", s23, got1),
                               f32View("w2", s4, got2)};
  CAPI_ASSERT_OK(capture_module_get_params(m.get(), out, 2));
  EXPECT_EQ(got1, rtt::initialW1());
  CAPI_ASSERT_OK(capture_module_set_params(m.get(), all, 3, 0));
  CAPI_ASSERT_OK(capture_module_get_params(m.get(), out, 2));
  EXPECT_EQ(got1, w1);
  EXPECT_EQ(got2, w2);
  // Partial.
  std::vector<float> w2b = {0, 0, 0, 1};
  capture_tensor_view one = f32View("w2", s4, w2b);
  CAPI_ASSERT_OK(capture_module_set_params(m.get(), &one, 1, 1));
  CAPI_ASSERT_OK(capture_module_get_params(m.get(), out, 2));
  EXPECT_EQ(got1, w1);
  EXPECT_EQ(got2, w2b);
}

TEST_F(CapiTest, ReadGradientsAndResetOptimizer) {
  OwnedModule m = load(rtt::makeTrainModule(false));
  ASSERT_TRUE(m);
  std::vector<float> g(16);
  EXPECT_THAT(error(capture_module_read_gradients(m.get(), "train", g.data(),
                                                  g.size() * 4)),
              isError(CAPTURE_STATUS_ERROR, {"has not run a step"}));
  CAPI_ASSERT_OK(trainStep(m.get(), rtt::trainInputX()));
  CAPI_ASSERT_OK(
      capture_module_read_gradients(m.get(), "train", g.data(), g.size() * 4));
  std::vector<float> p = rtt::trainInitialParams(), x = rtt::trainInputX();
  for (size_t i = 0; i < 16; ++i)
    EXPECT_EQ(g[i], p[i] - x[i]) << i;
  EXPECT_THAT(
      error(capture_module_read_gradients(m.get(), "train", g.data(), 4)),
      isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"64"}));
  CAPI_ASSERT_OK(capture_module_reset_optimizer(m.get(), "train"));
  capture_train_state state{};
  CAPI_ASSERT_OK(capture_module_train_state(m.get(), "train", &state));
  EXPECT_EQ(state.step, 0u);
  std::vector<float> mm(16, 1), vv(16, 1);
  CAPI_ASSERT_OK(
      capture_module_read_moments(m.get(), "train", mm.data(), vv.data(), 64));
  EXPECT_EQ(mm, std::vector<float>(16, 0.0f));
  EXPECT_EQ(vv, std::vector<float>(16, 0.0f));
  EXPECT_THAT(error(capture_module_reset_optimizer(m.get(), "eval")),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"eval"}));
}

TEST_F(CapiTest, WrittenMomentsAndStepResumeBitwise) {
  OwnedModule a = load(rtt::makeTrainModule(false));
  OwnedModule b = load(rtt::makeTrainModule(false));
  ASSERT_TRUE(a && b);
  for (int i = 0; i < 3; ++i)
    CAPI_ASSERT_OK(trainStep(a.get(), rtt::trainInputX()));
  // b takes a's state: weights, both moments, t.
  std::vector<float> mm(16), vv(16);
  CAPI_ASSERT_OK(
      capture_module_read_moments(a.get(), "train", mm.data(), vv.data(), 64));
  EXPECT_THAT(error(capture_module_write_moments(b.get(), "train", mm.data(),
                                                 vv.data(), 60)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"64"}));
  CAPI_ASSERT_OK(
      capture_module_write_moments(b.get(), "train", mm.data(), vv.data(), 64));
  CAPI_ASSERT_OK(capture_module_set_train_step(b.get(), "train", 3));
  std::vector<int64_t> s23 = {2, 3}, s4 = {4};
  std::vector<float> w1(6), w2(4);
  capture_tensor_view trained[] = {f32View("w1", s23, w1),
                                   f32View("w2", s4, w2)};
  CAPI_ASSERT_OK(capture_module_get_params(a.get(), trained, 2));
  CAPI_ASSERT_OK(capture_module_set_params(b.get(), trained, 2, 1));
  for (int i = 0; i < 2; ++i) {
    CAPI_ASSERT_OK(trainStep(a.get(), rtt::trainInputX()));
    CAPI_ASSERT_OK(trainStep(b.get(), rtt::trainInputX()));
  }
  std::vector<float> ma(16), va(16), mb(16), vb(16), wa(6), wb(6);
  CAPI_ASSERT_OK(
      capture_module_read_moments(a.get(), "train", ma.data(), va.data(), 64));
  CAPI_ASSERT_OK(
      capture_module_read_moments(b.get(), "train", mb.data(), vb.data(), 64));
  EXPECT_EQ(ma, mb);
  EXPECT_EQ(va, vb);
  capture_tensor_view pa = f32View("w1", s23, wa), pb = f32View("w1", s23, wb);
  CAPI_ASSERT_OK(capture_module_get_params(a.get(), &pa, 1));
  CAPI_ASSERT_OK(capture_module_get_params(b.get(), &pb, 1));
  EXPECT_EQ(wa, wb);
}

TEST_F(CapiTest, RunWithProbesAndUploadBytes) {
  OwnedModule m = load(rtt::makeTestModule());
  ASSERT_TRUE(m);
  std::vector<float> x = rtt::inputX(), b = rtt::inputB(), h(8, -1), y(8);
  std::vector<int64_t> s24 = {2, 4};
  capture_tensor_view in[] = {f32View("x", s24, x), f32View("b", s24, b)};
  capture_tensor_view out = f32View("y", s24, y);
  capture_tensor_view probe = f32View("h", s24, h);
  CAPI_ASSERT_OK(capture_module_run_with_probes(m.get(), "predict", in, 2, &out,
                                                1, &probe, 1));
  std::vector<float> w = rtt::initialWeights();
  for (size_t i = 0; i < 8; ++i)
    EXPECT_EQ(h[i], x[i] + w[i]);
  EXPECT_EQ(y, rtt::expectY(x, b, w));
  uint64_t bytes = 1;
  CAPI_ASSERT_OK(capture_module_run(m.get(), "predict", in, 2, &out, 1));
  CAPI_ASSERT_OK(capture_module_last_upload_bytes(m.get(), &bytes));
  EXPECT_EQ(bytes, 0u);
  capture_tensor_view nope = f32View("nope", s24, h);
  EXPECT_THAT(error(capture_module_run_with_probes(m.get(), "predict", in, 2,
                                                   nullptr, 0, &nope, 1)),
              isError(CAPTURE_STATUS_NOT_FOUND, {"'nope'", "'h'"}));
  std::vector<float> o(8);
  EXPECT_THAT(
      error(capture_module_run_with_probes(m.get(), "bias", nullptr, 0, nullptr,
                                           0, &probe, 1)),
      isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"has no probes", "ag.probe"}));
}

TEST_F(CapiTest, LoadSharingWeights) {
  OwnedModule a = load(rtt::makeTrainModule(false));
  ASSERT_TRUE(a);
  rt::ModuleDesc evalOnly = rtt::makeTrainModule(false);
  evalOnly.entries.erase(evalOnly.entries.begin());
  std::vector<uint8_t> bytes = rt::writeCapmod(evalOnly);
  capture_module *b = nullptr;
  CAPI_ASSERT_OK(capture_module_load_bytes_shared(device, bytes.data(),
                                                  bytes.size(), a.get(), &b));
  OwnedModule ownedB(b);
  CAPI_ASSERT_OK(trainStep(a.get(), rtt::trainInputX()));
  std::vector<float> fromA(6), fromB(6);
  CAPI_ASSERT_OK(capture_module_get_param(a.get(), "w1", fromA.data(), 24));
  CAPI_ASSERT_OK(capture_module_get_param(b, "w1", fromB.data(), 24));
  EXPECT_EQ(fromA, fromB);
  EXPECT_NE(fromA, rtt::initialW1());

  evalOnly.weights[0].shape = {3, 2};
  bytes = rt::writeCapmod(evalOnly);
  capture_module *c = nullptr;
  EXPECT_THAT(error(capture_module_load_bytes_shared(
                  device, bytes.data(), bytes.size(), a.get(), &c)),
              isError(CAPTURE_STATUS_ERROR, {"'w1'", "[3, 2]", "[2, 3]"}));
  EXPECT_EQ(c, nullptr);
}

} // namespace
