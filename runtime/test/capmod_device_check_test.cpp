//===- capmod_device_check_test.cpp - A module's needs against a device ---===//
//
// What verifyForDevice refuses in a verified module because of what the
// kernels assume of the device: llvmpipe's loop limit and the subgroup
// operations and sizes their shuffles need. No device needed: the limits
// are made up.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "spirv_check.h"
#include "test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

/// `desc` written and read back.
ModuleDesc roundTrip(const ModuleDesc &desc) {
  std::vector<uint8_t> bytes = writeCapmod(desc);
  Result<ModuleDesc> parsed = parseCapmod(bytes.data(), bytes.size());
  EXPECT_TRUE(parsed.isOk()) << parsed.message();
  return parsed.isOk() ? std::move(parsed).value() : ModuleDesc();
}

TEST(Capmod, LoopIterationsRoundTripAndAreCheckedAgainstTheDevice) {
  // A kernel whose loops run past llvmpipe's limit (a module compiled for
  // the gpu target, which unrolls nothing) is refused there, with the fix;
  // at the limit, on a device without one, or unsaid (0), it loads.
  ModuleDesc desc = makeTestModule();
  desc.kernels[0].loopIterations = 70000;
  ModuleDesc read = roundTrip(desc);
  EXPECT_EQ(read.kernels[0].loopIterations, 70000u);
  EXPECT_EQ(read.kernels[1].loopIterations, 0u);
  DeviceLimits llvmpipe = lavapipeLikeLimits();
  llvmpipe.maxLoopIterations = 65535;
  EXPECT_EQ(verifyForDevice(read, llvmpipe).message(),
            "capmod: kernel 0 ('" + desc.kernels[0].name +
                "') runs up to 70000 loop iterations in one invocation "
                "(compile the module with capture-aot --target=lavapipe, "
                "which unrolls them): llvmpipe ends an invocation's loops "
                "after 65535, which would make the results wrong on device "
                "'test-device'");
  read.kernels[0].loopIterations = 65535;
  EXPECT_TRUE(verifyForDevice(read, llvmpipe).isOk());
  read.kernels[0].loopIterations = 70000;
  EXPECT_TRUE(verifyForDevice(read, lavapipeLikeLimits()).isOk());
}

TEST(Capmod, SubgroupMultipleRoundTripsAndIsCheckedAgainstTheDevice) {
  // A kernel whose shuffles pass values within groups of 8 lanes runs on
  // subgroups of 8, 16 or 32 lanes, and is refused on 4 (llvmpipe on a
  // 128-bit CPU) or where the size is unknown (a Vulkan 1.0 device).
  ModuleDesc desc = makeTestModule();
  desc.kernels[1].subgroupMultiple = 8;
  ModuleDesc read = roundTrip(desc);
  EXPECT_EQ(read.kernels[0].subgroupMultiple, 0u);
  EXPECT_EQ(read.kernels[1].subgroupMultiple, 8u);
  DeviceLimits limits = lavapipeLikeLimits();
  for (uint32_t size : {8u, 16u, 32u}) {
    limits.subgroupSize = size;
    EXPECT_TRUE(verifyForDevice(read, limits).isOk()) << size;
  }
  for (uint32_t size : {0u, 4u, 12u}) {
    limits.subgroupSize = size;
    EXPECT_EQ(verifyForDevice(read, limits).message(),
              "capmod: kernel 1 ('" + desc.kernels[1].name +
                  "') shares values within groups of 8 lanes, so it needs "
                  "subgroups of a multiple of 8 invocations; this device's "
                  "have " +
                  std::to_string(size) +
                  " (compile the module with capture-aot "
                  "--tile-shuffles=false, which needs none) on device "
                  "'test-device'");
  }
  // No kernel that says 0 cares.
  read.kernels[1].subgroupMultiple = 0;
  EXPECT_TRUE(verifyForDevice(read, limits).isOk());
}

TEST(Capmod, ShufflesNeedSubgroupShuffleSupport) {
  // A kernel declaring GroupNonUniformShuffle is refused on a device whose
  // compute shaders lack VK_SUBGROUP_FEATURE_SHUFFLE_BIT; the others load.
  ModuleDesc desc = makeTestModule();
  DeviceLimits limits = lavapipeLikeLimits();
  limits.subgroupShuffle = false;
  EXPECT_TRUE(verifyForDevice(desc, limits).isOk());
  std::vector<uint32_t> &words = desc.kernels[0].spirv;
  words.insert(words.begin() + 5,
               {(2u << 16) | 17u, kSpirvCapabilityGroupNonUniformShuffle});
  EXPECT_THAT(verifyForDevice(desc, limits).message(),
              AllOf(HasSubstr("kernel 0 ('" + desc.kernels[0].name +
                              "') uses subgroup shuffles (SPIR-V capability "
                              "GroupNonUniformShuffle)"),
                    HasSubstr("--tile-shuffles=false"),
                    HasSubstr("on device 'test-device'")));
  EXPECT_TRUE(verifyForDevice(desc, lavapipeLikeLimits()).isOk());
}

} // namespace
