//===- capmod_texel_test.cpp - Texel-buffer bindings in module files ------===//
//
// No device needed: the schema field, the verifier's rules, the checks
// against a device's limits, the census and the graph.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "capture/rt/census.h"
#include "read_error.h"
#include "test_util.h"
#include "texel_module.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

DispatchDesc &dispatchOf(ModuleDesc &m, size_t command) {
  return m.entries[0].commands[command].dispatch;
}

std::string deviceError(const ModuleDesc &desc, const DeviceLimits &limits) {
  EXPECT_TRUE(verifyModuleDesc(desc).isOk());
  Status s = verifyForDevice(desc, limits);
  EXPECT_TRUE(s.isError()) << "module was accepted";
  return s.message();
}

TEST(CapmodTexel, BindingKindsRoundTrip) {
  ModuleDesc desc = makeTexelModule();
  std::vector<uint8_t> bytes = writeCapmod(desc);
  Result<ModuleDesc> r = readCapmod(bytes.data(), bytes.size());
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r->formatVersion, kCapmodFormatVersion);
  for (size_t k = 0; k < 2; ++k)
    EXPECT_EQ(r->kernels[k].bindingKinds,
              (std::vector<BindingKind>{BindingKind::TexelBufferRgba32f,
                                        BindingKind::StorageBuffer}));
  EXPECT_EQ(writeCapmod(r.value()), bytes);
  EXPECT_TRUE(verifyForDevice(r.value(), lavapipeLikeLimits()).isOk());

  // Absent stays absent: every binding of the test module is a storage
  // buffer.
  ModuleDesc plain = makeTestModule();
  bytes = writeCapmod(plain);
  r = readCapmod(bytes.data(), bytes.size());
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_TRUE(r->kernels[0].bindingKinds.empty());
  EXPECT_EQ(bindingKindOf(r->kernels[0], 2), BindingKind::StorageBuffer);
  EXPECT_STREQ(bindingKindName(BindingKind::TexelBufferRgba32f),
               "TexelBufferRgba32f");
}

TEST(CapmodTexel, NumBindingsIsBounded) {
  // Found by the loader's fuzzer: a huge num_bindings (with a SPIR-V
  // binding decoration to match) made the SPIR-V check allocate a table of
  // that size.
  ModuleDesc desc = makeTexelModule();
  desc.kernels[1].numBindings = 1u << 30;
  desc.kernels[1].bindingKinds.clear();
  EXPECT_THAT(readError(desc),
              HasSubstr("capmod: kernel 1 ('scale_w'): num_bindings is "
                        "1073741824, expected at most 4096"));
}

TEST(CapmodTexel, BindingKindsHaveOneEntryPerBinding) {
  ModuleDesc desc = makeTexelModule();
  desc.kernels[1].bindingKinds.pop_back();
  EXPECT_THAT(readError(desc),
              HasSubstr("capmod: kernel 1 ('scale_w'): binding_kinds has 1 "
                        "entries, expected 2 (num_bindings) or none"));
}

TEST(CapmodTexel, UnknownBindingKind) {
  ModuleDesc desc = makeTexelModule();
  desc.kernels[0].bindingKinds[1] = static_cast<BindingKind>(7);
  EXPECT_THAT(readError(desc),
              HasSubstr("capmod: kernel 0 ('scale_x'): binding_kinds[1] is 7, "
                        "expected StorageBuffer (0) or TexelBufferRgba32f "
                        "(1)"));
}

TEST(CapmodTexel, RangeOfWholeTexels) {
  ModuleDesc desc = makeTexelModule();
  desc.kernels[0].bindingShapes.clear(); // only the texel rule applies
  dispatchOf(desc, 0).bindings[0].size = 24;
  EXPECT_THAT(readError(desc),
              HasSubstr("capmod: dispatch 0 of entry 'predict': binding 0 "
                        "(TexelBufferRgba32f) range [0, 24) has an offset or "
                        "size that is not a multiple of 16 bytes (one RGBA32F "
                        "texel)"));

  desc = makeTexelModule();
  desc.target.bindingAlignment = 8;
  dispatchOf(desc, 1).bindings[0].offset = 264;
  EXPECT_THAT(readError(desc),
              HasSubstr("dispatch 1 of entry 'predict': binding 0 "
                        "(TexelBufferRgba32f) range [264, 296) has an offset "
                        "or size that is not a multiple of 16 bytes"));
}

TEST(CapmodTexel, TexelBindingsAreReadOnly) {
  ModuleDesc desc = makeTexelModule();
  dispatchOf(desc, 1).writes = {0, 1};
  EXPECT_THAT(readError(desc),
              HasSubstr("capmod: dispatch 1 of entry 'predict': writes "
                        "binding 0, which kernel 'scale_w' binds as "
                        "TexelBufferRgba32f; texel bindings are read-only"));
}

TEST(CapmodTexel, ShapeSizeIsRoundedUpToWholeTexels) {
  // [6] and [5] floats (24 and 20 bytes) bind 32 bytes: accepted as made.
  ModuleDesc desc = makeTexelModule();
  EXPECT_TRUE(verifyModuleDesc(desc).isOk());
  // A whole extra texel is not padding of the tensor.
  desc.buffers[kTexelInput].size = 256;
  dispatchOf(desc, 0).bindings[0].size = 48;
  EXPECT_THAT(readError(desc),
              HasSubstr("dispatch 0 of entry 'predict': binding 0 is 48 "
                        "bytes, but kernel 'scale_x' binds a tensor of 24 "
                        "bytes there (as a texel buffer: 32 bytes, rounded "
                        "up to whole 16-byte texels)"));
  // Storage buffers keep the exact size.
  desc = makeTexelModule();
  dispatchOf(desc, 0).bindings[1].size = 32;
  EXPECT_THAT(readError(desc),
              AllOf(HasSubstr("dispatch 0 of entry 'predict': binding 1 is 32 "
                              "bytes, but kernel 'scale_x' binds a tensor of "
                              "24 bytes there"),
                    ::testing::Not(HasSubstr("texel"))));
}

TEST(CapmodTexel, SpirvMustMatchTheBindingKind) {
  // A storage-buffer shader bound as a texel buffer, and the other way.
  ModuleDesc desc = makeTexelModule();
  desc.kernels[0].spirv = loadKernel("add");
  desc.kernels[0].numBindings = 3;
  desc.kernels[0].bindingShapes.clear();
  desc.kernels[0].bindingKinds = {BindingKind::TexelBufferRgba32f,
                                  BindingKind::StorageBuffer,
                                  BindingKind::StorageBuffer};
  EXPECT_THAT(readError(desc),
              AllOf(HasSubstr("capmod: kernel 0 ('scale_x'): SPIR-V resource "
                              "%"),
                    HasSubstr(" at binding 0 is not an RGBA32F storage texel "
                              "buffer (a UniformConstant OpTypeImage of Dim "
                              "Buffer, Sampled 2, format Rgba32f), but "
                              "binding_kinds says TexelBufferRgba32f")));

  desc = makeTexelModule();
  desc.kernels[1].bindingKinds.clear();
  EXPECT_THAT(readError(desc),
              AllOf(HasSubstr("capmod: kernel 1 ('scale_w'): SPIR-V resource "
                              "%"),
                    HasSubstr(" at binding 0 is an RGBA32F storage texel "
                              "buffer, but binding_kinds says StorageBuffer "
                              "(it is absent: every binding is a storage "
                              "buffer)")));
}

TEST(CapmodTexel, DeviceLimits) {
  ModuleDesc desc = makeTexelModule();
  DeviceLimits l = lavapipeLikeLimits();
  l.rgba32fStorageTexelBuffer = false;
  EXPECT_EQ(deviceError(desc, l),
            "capmod: kernel 0 ('scale_x') has TexelBufferRgba32f bindings, but "
            "VK_FORMAT_R32G32B32A32_SFLOAT has no "
            "VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT in its bufferFeatures "
            "on device 'test-device'");

  l = lavapipeLikeLimits();
  l.minTexelBufferOffsetAlignment = 512;
  EXPECT_EQ(deviceError(desc, l),
            "capmod: dispatch 1 of entry 'predict': binding 0 "
            "(TexelBufferRgba32f of kernel 'scale_w') offset 256 is not a "
            "multiple of minTexelBufferOffsetAlignment 512 on device "
            "'test-device'");

  l = lavapipeLikeLimits();
  l.maxTexelBufferElements = 1;
  EXPECT_EQ(deviceError(desc, l),
            "capmod: dispatch 0 of entry 'predict': binding 0 "
            "(TexelBufferRgba32f of kernel 'scale_x') is 2 texels (32 bytes), "
            "more than maxTexelBufferElements 1 on device 'test-device'");

  l = lavapipeLikeLimits();
  l.maxStorageImagesPerSet = 0;
  EXPECT_THAT(deviceError(desc, l),
              HasSubstr("kernel 0 ('scale_x'): 1 texel buffer bindings, more "
                        "than the limit of storage images per set 0"));

  // Texel bindings do not count against the storage-buffer limits.
  l = lavapipeLikeLimits();
  l.maxStorageBuffersPerSet = 1;
  l.maxStorageBufferRange = 24;
  EXPECT_TRUE(verifyForDevice(desc, l).isOk());
}

TEST(CapmodTexel, CensusAndGraphShowTexelBindings) {
  ModuleDesc desc = makeTexelModule();
  Result<ModuleCensus> c = moduleCensus(desc);
  ASSERT_TRUE(c.isOk()) << c.message();
  EXPECT_EQ(c->kernels[0].numBindings, 2u);
  EXPECT_EQ(c->kernels[0].texelBindings, 1u);
  Result<ModuleCensus> plain = moduleCensus(makeTestModule());
  ASSERT_TRUE(plain.isOk());
  EXPECT_EQ(plain->kernels[0].texelBindings, 0u);

  Result<std::string> g = formatEntryGraph(desc, "predict");
  ASSERT_TRUE(g.isOk()) << g.message();
  EXPECT_EQ(g.value(),
            "entry 'predict' (Forward): 2 dispatches, 0 barriers\n"
            "  d0 scale_x groups 1x1x1: read texel b0:Input[0,32) [6] (x), "
            "write b1:Output[0,24) [6] (y)\n"
            "  d1 scale_w groups 1x1x1: read texel b2:Weights[256,288) [5] "
            "(w), write b1:Output[256,276) [5] (z)\n");
}

} // namespace
