//===- profile_test.cpp - Profiled runs: kernels, times, lazy recording ---===//
//
// A profile has one entry per kernel the entry dispatches, with the
// dispatch counts of the schedule, and non-negative times; the profiled
// command buffer is recorded only on an entry's first profiled replay.
// A device without timestamps cannot be simulated here: its check is
// tested as a function (checkTimestampSupport).
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "capture/rt/module.h"
#include "device_fixture.h"
#include "test_util.h"
#include "train_module.h"

// Internal: the timestamp checks and arithmetic.
#include "profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::HasSubstr;

namespace {

class ProfileTest : public DeviceTest {
protected:
  static std::vector<NamedTensor> predictInputs() {
    return {{"x", HostTensor::f32({2, 4}, inputX())},
            {"b", HostTensor::f32({2, 4}, inputB())}};
  }

  static RunOptions profiled(Profile &p, bool eager = false) {
    RunOptions o;
    o.eager = eager;
    o.profile = &p;
    return o;
  }

  /// The checks every profile must pass: kernels in order of first
  /// dispatch with `counts` dispatches each, non-negative times that add
  /// up, and the dispatches' times when the device has timestamps.
  static void
  checkProfile(const Profile &p, const std::string &entry, bool eager,
               uint64_t submissions,
               const std::vector<std::pair<std::string, uint64_t>> &counts) {
    EXPECT_EQ(p.entry, entry);
    EXPECT_EQ(p.eager, eager);
    EXPECT_EQ(p.submissions, submissions);
    std::vector<std::pair<std::string, uint64_t>> got;
    uint64_t dispatches = 0;
    for (const KernelProfile &k : p.kernels) {
      got.emplace_back(k.name, k.dispatches);
      dispatches += k.dispatches;
      EXPECT_GE(k.deviceUs, 0.0) << k.name;
    }
    EXPECT_EQ(got, counts);
    for (double us : {p.host.packUs, p.host.recordUs, p.host.submitUs,
                      p.host.waitUs, p.host.unpackUs})
      EXPECT_GE(us, 0.0);
    EXPECT_GT(p.host.waitUs, 0.0);
    if (!eager) {
      EXPECT_EQ(p.host.recordUs, 0.0);
    }
    if (!p.hasDeviceTimes) {
      // The reason is said; nothing pretends to be a measurement.
      EXPECT_THAT(p.noDeviceTimes, HasSubstr("has no timestamps"));
      EXPECT_TRUE(p.dispatchUs.empty());
      return;
    }
    EXPECT_TRUE(p.noDeviceTimes.empty());
    EXPECT_GT(p.timestampValidBits, 0u);
    EXPECT_GT(p.timestampPeriodNs, 0.0);
    ASSERT_EQ(p.dispatchUs.size(), dispatches);
    double sum = 0;
    for (double us : p.dispatchUs) {
      EXPECT_GE(us, 0.0);
      sum += us;
    }
    double kernels = 0;
    for (const KernelProfile &k : p.kernels)
      kernels += k.deviceUs;
    EXPECT_NEAR(kernels, sum, 1e-9 * (1 + sum));
    // Every dispatch lies inside the submission(s).
    EXPECT_GE(p.submissionUs, sum);
  }
};

TEST_F(ProfileTest, OneEntryPerKernelWithTheDispatchCounts) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  Result<std::vector<NamedTensor>> plain = m->run("predict", predictInputs());
  ASSERT_TRUE(plain.isOk()) << plain.message();
  for (int k = 0; k < 3; ++k) {
    Profile p;
    Result<std::vector<NamedTensor>> out =
        m->run("predict", predictInputs(), profiled(p));
    ASSERT_TRUE(out.isOk()) << out.message();
    // predict: add, barrier, mul, add.
    checkProfile(p, "predict", false, 1, {{"add_0", 2}, {"mul_0", 1}});
    // The profiled command buffer computes what the plain one does.
    ASSERT_EQ(out->size(), plain->size());
    for (size_t i = 0; i < out->size(); ++i)
      EXPECT_EQ(out.value()[i].tensor.data, plain.value()[i].tensor.data);
  }
  Profile bias;
  ASSERT_TRUE(m->run("bias", {}, profiled(bias)).isOk());
  checkProfile(bias, "bias", false, 1, {{"add_0", 1}});
  // The probe reads the profiled replay's scratch.
  ASSERT_TRUE(m->run("predict", predictInputs(), profiled(bias)).isOk());
  ASSERT_TRUE(m->readProbe("predict", "h").isOk());
}

TEST_F(ProfileTest, EagerHasOneSubmissionPerDispatch) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  Profile p;
  ASSERT_TRUE(m->run("predict", predictInputs(), profiled(p, true)).isOk());
  checkProfile(p, "predict", true, 3, {{"add_0", 2}, {"mul_0", 1}});
  EXPECT_GT(p.host.recordUs, 0.0);
  Profile side;
  ASSERT_TRUE(m->run("side", {{"x2", HostTensor::f32({2, 4}, inputX())}},
                     profiled(side, true))
                  .isOk());
  checkProfile(side, "side", true, 1, {{"add_0", 1}});
}

TEST_F(ProfileTest, NothingIsRecordedUntilRequested) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->recordCount(), 3u); // one per entry at load
  RunOptions eager;
  eager.eager = true;
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(m->run("predict", predictInputs()).isOk());
    ASSERT_TRUE(m->run("predict", predictInputs(), eager).isOk());
  }
  EXPECT_EQ(m->recordCount(), 3u);
  // A profiled eager run records per-dispatch command buffers only.
  Profile p;
  ASSERT_TRUE(m->run("predict", predictInputs(), profiled(p, true)).isOk());
  EXPECT_EQ(m->recordCount(), 3u);
  // The first profiled replay of an entry records its profiled variant
  // (on a device with timestamps), later ones reuse it.
  uint64_t variant = p.hasDeviceTimes ? 1 : 0;
  ASSERT_TRUE(m->run("predict", predictInputs(), profiled(p)).isOk());
  EXPECT_EQ(m->recordCount(), 3u + variant);
  for (int k = 0; k < 3; ++k)
    ASSERT_TRUE(m->run("predict", predictInputs(), profiled(p)).isOk());
  EXPECT_EQ(m->recordCount(), 3u + variant);
  ASSERT_TRUE(m->run("bias", {}, profiled(p)).isOk());
  EXPECT_EQ(m->recordCount(), 3u + 2 * variant);
  // Unprofiled replays go on submitting the plain command buffer.
  Result<std::vector<NamedTensor>> out = m->run("predict", predictInputs());
  ASSERT_TRUE(out.isOk()) << out.message();
  EXPECT_THAT(out.value()[0].tensor.asF32(),
              ::testing::ElementsAreArray(
                  expectY(inputX(), inputB(), initialWeights())));
  EXPECT_EQ(m->recordCount(), 3u + 2 * variant);
}

TEST_F(ProfileTest, TrainingStepsKeepTheirSemantics) {
  std::unique_ptr<Module> m = load(makeTrainModule(true));
  ASSERT_TRUE(m);
  auto x = [](const std::vector<float> &v) {
    return std::vector<NamedTensor>{{"x", HostTensor::f32({16}, v)}};
  };
  // train: sub (gradients), sub (residual), barrier, norm_clip, barrier,
  // adamw.
  std::vector<std::pair<std::string, uint64_t>> kernels = {
      {"sub_0", 2}, {"norm_clip_0", 1}, {"adamw_0", 1}};
  for (bool eager : {false, true}) {
    SCOPED_TRACE(eager ? "eager" : "replay");
    Result<TrainState> before = m->trainState("train");
    ASSERT_TRUE(before.isOk());
    Profile p;
    ASSERT_TRUE(m->run("train", x(trainInputX()), profiled(p, eager)).isOk());
    checkProfile(p, "train", eager, eager ? 4 : 1, kernels);
    EXPECT_EQ(m->trainState("train")->step, before->step + 1);

    // A refused step: the error, t kept, and a profile of what ran.
    std::vector<float> nanX = trainInputX();
    nanX[0] = std::numeric_limits<float>::quiet_NaN();
    Profile refused;
    Result<std::vector<NamedTensor>> r =
        m->run("train", x(nanX), profiled(refused, eager));
    ASSERT_TRUE(r.isError());
    EXPECT_THAT(r.message(), HasSubstr("the AdamW update was not applied"));
    EXPECT_EQ(m->trainState("train")->step, before->step + 1);
    checkProfile(refused, "train", eager, eager ? 4 : 1, kernels);
  }
}

TEST(TimestampSupport, RefusesQueuesWithoutTimestamps) {
  Status none = checkTimestampSupport(0, 1.0f, "NullGPU", 2);
  ASSERT_TRUE(none.isError());
  EXPECT_EQ(none.message(),
            "device 'NullGPU' has no timestamps for profiling: its compute "
            "queue (family 2) has timestampValidBits = 0, expected 1 to 64; "
            "device times are not measured, host stages are");
  Status period = checkTimestampSupport(64, 0.0f, "NullGPU", 0);
  ASSERT_TRUE(period.isError());
  EXPECT_THAT(period.message(),
              HasSubstr("has timestampPeriod = 0 ns, expected > 0"));
  Status nanPeriod = checkTimestampSupport(
      36, std::numeric_limits<float>::quiet_NaN(), "NullGPU", 0);
  EXPECT_THAT(nanPeriod.message(), HasSubstr("timestampPeriod = nan ns"));
  Status tooMany = checkTimestampSupport(65, 1.0f, "NullGPU", 0);
  EXPECT_THAT(tooMany.message(),
              HasSubstr("timestampValidBits = 65, expected 1 to 64"));
  EXPECT_TRUE(checkTimestampSupport(36, 83.3f, "GPU", 0).isOk());
  EXPECT_TRUE(checkTimestampSupport(64, 1.0f, "lavapipe", 0).isOk());
}

TEST(TimestampSupport, DeltasWrapAroundTheValidBits) {
  // 8 valid bits: 250 -> 4 is 10 ticks past a wrap; 2 ns per tick.
  EXPECT_DOUBLE_EQ(timestampDeltaUs(250, 4, 8, 2.0), 0.02);
  // Bits above the valid ones are ignored.
  EXPECT_DOUBLE_EQ(timestampDeltaUs(0xff00, 0x1ff05, 8, 1000.0), 5.0);
  EXPECT_DOUBLE_EQ(timestampDeltaUs(1000, 3000, 64, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(
      timestampDeltaUs(std::numeric_limits<uint64_t>::max(), 999, 64, 1.0),
      1.0);
}

} // namespace
