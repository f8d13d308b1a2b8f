//===- initializer_test.cpp - Weight initializers -------------------------===//
//
// No device needed: the element stream and the checks of initializer.h.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "capture/rt/initializer.h"
#include "read_error.h"
#include "test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

std::vector<float> evaluate(const InitializerDesc &init, size_t count) {
  std::vector<float> out(count, -1.0f);
  evaluateInitializer(init, count, out.data());
  return out;
}

InitializerDesc make(InitKind kind, uint64_t seed = 1) {
  InitializerDesc init;
  init.kind = kind;
  init.seed = seed;
  return init;
}

TEST(Initializer, TheStreamIsSplitMix64) {
  // The first words of SplitMix64 from state 0 are published reference
  // values; u(i) takes their top 24 bits.
  InitializerDesc init = make(InitKind::Uniform, 0);
  init.low = 0;
  init.high = 1;
  std::vector<float> u = evaluate(init, 2);
  EXPECT_EQ(u[0],
            static_cast<float>((0xe220a8397b1dcdafull >> 40) / 16777216.0));
  EXPECT_EQ(u[1],
            static_cast<float>((0x6e789e6aa1b965f4ull >> 40) / 16777216.0));
}

TEST(Initializer, UniformAndLinearStayInRangeAndDependOnTheSeed) {
  InitializerDesc init = make(InitKind::Uniform, 3);
  init.low = -2;
  init.high = 6;
  std::vector<float> a = evaluate(init, 10000);
  double sum = 0;
  for (float v : a) {
    ASSERT_GE(v, -2.0f);
    ASSERT_LE(v, 6.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / a.size(), 2.0, 0.1);
  EXPECT_EQ(evaluate(init, 10000), a); // deterministic
  init.seed = 4;
  EXPECT_NE(evaluate(init, 10000), a);

  InitializerDesc linear = make(InitKind::Linear, 3);
  linear.fanIn = 16; // torch.nn.Linear: U(-1/4, 1/4)
  float lo = 1, hi = -1;
  for (float v : evaluate(linear, 10000)) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GE(lo, -0.25f);
  EXPECT_LE(hi, 0.25f);
  EXPECT_LT(lo, -0.24f);
  EXPECT_GT(hi, 0.24f);
}

TEST(Initializer, NormalHasItsMeanAndStd) {
  InitializerDesc init = make(InitKind::Normal, 9);
  init.mean = 1.5f;
  init.std = 0.5f;
  std::vector<float> v = evaluate(init, 20001); // odd: the last takes cos
  double sum = 0, sq = 0;
  for (float x : v) {
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    sq += (x - 1.5) * (x - 1.5);
  }
  EXPECT_NEAR(sum / v.size(), 1.5, 0.02);
  EXPECT_NEAR(std::sqrt(sq / v.size()), 0.5, 0.02);
  EXPECT_NE(v.back(), -1.0f);
}

TEST(Initializer, ConstantAndZeros) {
  InitializerDesc c = make(InitKind::Constant);
  c.value = -0.75f;
  EXPECT_EQ(evaluate(c, 3), (std::vector<float>{-0.75f, -0.75f, -0.75f}));
  std::vector<float> z = evaluate(make(InitKind::Zeros), 2);
  EXPECT_EQ(z, (std::vector<float>{0.0f, 0.0f}));
  EXPECT_FALSE(std::signbit(z[0]));
}

TEST(Initializer, ChecksNameTheField) {
  float inf = std::numeric_limits<float>::infinity();
  InitializerDesc u = make(InitKind::Uniform);
  u.low = 1;
  u.high = 0;
  EXPECT_THAT(checkInitializer(u, "w").message(),
              HasSubstr("w: uniform initializer: low must be <= high, got "
                        "low 1 and high 0"));
  u.high = inf;
  EXPECT_THAT(checkInitializer(u, "w").message(),
              HasSubstr("high must be finite, got inf"));
  InitializerDesc n = make(InitKind::Normal);
  n.std = -1;
  EXPECT_THAT(checkInitializer(n, "w").message(),
              HasSubstr("normal initializer: std must be >= 0, got -1"));
  InitializerDesc l = make(InitKind::Linear);
  EXPECT_THAT(checkInitializer(l, "w").message(),
              HasSubstr("linear initializer: fan_in must be >= 1, got 0"));
  InitializerDesc bad = make(static_cast<InitKind>(9));
  EXPECT_THAT(checkInitializer(bad, "w").message(),
              HasSubstr("initializer kind 9 is unknown"));
  EXPECT_EQ(describeInitializer(l), "linear(fan_in=0, seed=1)");
}

TEST(Initializer, ModuleFileRoundTripAndChecks) {
  ModuleDesc desc = makeTestModule();
  desc.weights[0].init.reset();
  InitializerDesc n = make(InitKind::Normal, 42);
  n.mean = 0.5f;
  n.std = 2;
  desc.weights[0].initializer = n;
  std::vector<uint8_t> bytes = writeCapmod(desc);
  Result<ModuleDesc> back = readCapmod(bytes.data(), bytes.size());
  ASSERT_TRUE(back.isOk()) << back.message();
  ASSERT_TRUE(back->weights[0].initializer);
  const InitializerDesc &r = *back->weights[0].initializer;
  EXPECT_EQ(r.kind, InitKind::Normal);
  EXPECT_EQ(r.mean, 0.5f);
  EXPECT_EQ(r.std, 2.0f);
  EXPECT_EQ(r.seed, 42u);
  EXPECT_FALSE(back->weights[0].init);

  desc.weights[0].init = std::vector<uint8_t>(32, 0);
  EXPECT_THAT(readError(desc),
              HasSubstr("weight 0 ('w') has both init bytes and an "
                        "initializer, expected at most one"));
  desc.weights[0].init.reset();
  desc.weights[0].initializer->std = -1;
  EXPECT_THAT(readError(desc),
              HasSubstr("capmod: weight 0 ('w'): normal initializer: std "
                        "must be >= 0"));
}

} // namespace
