//===- host_isa_test.cpp - The host ISA check against the compiler's ------===//
//
// missingHostFeatures reads cpuid itself; the compiler's runtime CPU model
// (__builtin_cpu_supports, from libgcc or compiler-rt) is an independent
// reading of the same machine, so each feature must be missing exactly when
// that model says the machine lacks it. A wrong bit or register fails here
// on any machine that has the feature.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/host_isa.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace capture::rt;

namespace {

#if defined(__x86_64__)
/// The compiler's answer for a feature name (the names host_isa uses).
bool compilerSays(const std::string &name) {
  __builtin_cpu_init();
#define FEATURE(N)                                                             \
  if (name == N)                                                               \
    return __builtin_cpu_supports(N);
  FEATURE("popcnt")
  FEATURE("sse3")
  FEATURE("sse4.1")
  FEATURE("sse4.2")
  FEATURE("ssse3")
  FEATURE("avx")
  FEATURE("avx2")
  FEATURE("bmi")
  FEATURE("bmi2")
  FEATURE("fma")
  FEATURE("avx512f")
  FEATURE("avx512bw")
  FEATURE("avx512cd")
  FEATURE("avx512dq")
  FEATURE("avx512vl")
#undef FEATURE
  return true; // not in every compiler's model: not compared
}

/// The features of the level, as the runtime lists them when all are
/// missing: every name the levels up to `level` introduce.
const std::vector<std::string> kCompared = {
    "popcnt",  "sse3",     "sse4.1",   "sse4.2",   "ssse3",
    "avx",     "avx2",     "bmi",      "bmi2",     "fma",
    "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"};

TEST(HostIsa, MissingFeaturesAgreeWithTheCompilersCpuModel) {
  Result<std::vector<std::string>> v4 = missingHostFeatures("x86-64-v4");
  ASSERT_TRUE(v4.isOk()) << v4.message();
  for (const std::string &name : kCompared) {
    bool missing = std::find(v4->begin(), v4->end(), name) != v4->end();
    EXPECT_EQ(missing, !compilerSays(name)) << name;
  }
}

TEST(HostIsa, EachLevelAddsToTheOneBelow) {
  std::vector<std::string> below;
  for (std::string_view level : kHostIsaLevels) {
    Result<std::vector<std::string>> missing = missingHostFeatures(level);
    ASSERT_TRUE(missing.isOk()) << missing.message();
    // What a lower level misses, a higher one misses too, first.
    ASSERT_GE(missing->size(), below.size()) << level;
    EXPECT_TRUE(std::equal(below.begin(), below.end(), missing->begin()))
        << level;
    below = missing.value();
  }
  // The baseline is every x86-64 machine.
  EXPECT_TRUE(missingHostFeatures("x86-64")->empty());
}

TEST(HostIsa, CheckNamesTheLevelAndWhatIsMissing) {
  Result<std::vector<std::string>> v4 = missingHostFeatures("x86-64-v4");
  ASSERT_TRUE(v4.isOk());
  Status status = checkHostIsa("x86-64-v4");
  if (v4->empty()) {
    EXPECT_TRUE(status.isOk()) << status.message();
    return;
  }
  ASSERT_TRUE(status.isError());
  EXPECT_NE(status.message().find("needs x86-64-v4"), std::string::npos)
      << status.message();
  for (const std::string &name : v4.value())
    EXPECT_NE(status.message().find(name), std::string::npos)
        << status.message();
}
#endif

TEST(HostIsa, UnknownLevelsAreErrorsWithASuggestion) {
  Result<std::vector<std::string>> typo = missingHostFeatures("x86-64-v33");
  ASSERT_TRUE(typo.isError());
  EXPECT_EQ(typo.message(),
            "unknown host ISA level 'x86-64-v33': expected one of 'x86-64', "
            "'x86-64-v2', 'x86-64-v3', 'x86-64-v4' (did you mean "
            "'x86-64-v3'?)");
  EXPECT_TRUE(checkHostIsa("haswell").isError());
}

} // namespace
