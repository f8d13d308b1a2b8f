//===- capmod.h - Reading, verifying and writing .capmod files --*- C++ -*-===//
//
// Library capture-capmod (FlatBuffers and xxHash, no Vulkan). Reading is split in
// three steps so that each can be tested alone and so that nothing reaches
// the device before every bound is checked:
//   parseCapmod        identifier, checksum, format version, FlatBuffers
//                      verifier, conversion to a ModuleDesc;
//   verifyModuleDesc   every index/offset/size/name/SPIR-V header check that
//                      does not depend on the device;
//   verifyForDevice    the checks against a device's limits.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_CAPMOD_H
#define CAPTURE_RT_CAPMOD_H

#include "capture/rt/module_desc.h"
#include "capture/rt/status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace capture::rt {

/// Converts the bytes of a module file into a ModuleDesc. Checks the file
/// identifier "CAPM", the format version (before anything else, so that a
/// file of another version is reported as such) and runs the FlatBuffers
/// verifier. Does not check the semantic bounds: see verifyModuleDesc.
Result<ModuleDesc> parseCapmod(const uint8_t *data, size_t size);

/// Checks every device-independent bound of `desc`: indices, ranges
/// (overflow-safe), alignments, binding counts, dispatch shapes, tensor slot
/// sizes, weights and constants, unique names, SPIR-V headers, and that no
/// two dispatches between barriers access overlapping ranges where one writes.
Status verifyModuleDesc(const ModuleDesc &desc);

/// Checks AdamW hyperparameters as torch.optim.AdamW would accept them: lr
/// and weight_decay finite and >= 0, beta1 and beta2 in [0, 1), eps finite
/// and > 0. The message names the field as the schema does ("weight_decay
/// is -1, expected a finite value >= 0"). Shared by the loader and
/// Module::setAdamW so that both accept exactly the same values.
Status checkAdamW(const AdamWDesc &adamw);

/// Checks a gradient clipping limit: finite and > 0.
Status checkMaxGradNorm(float maxGradNorm);

/// parseCapmod followed by verifyModuleDesc.
Result<ModuleDesc> readCapmod(const uint8_t *data, size_t size);

/// Reads the file at `path` and calls readCapmod.
Result<ModuleDesc> readCapmodFile(const std::string &path);

/// The device limits a module is checked against (a copy of the relevant
/// VkPhysicalDeviceLimits fields, so that the check needs no Vulkan).
struct DeviceLimits {
  /// Device name, for messages.
  std::string deviceName;
  /// VkPhysicalDeviceProperties::apiVersion.
  uint32_t apiVersion = 0;
  /// maxComputeWorkGroupCount.
  uint32_t maxWorkGroupCount[3] = {0, 0, 0};
  /// maxComputeWorkGroupSize.
  uint32_t maxWorkGroupSize[3] = {0, 0, 0};
  /// maxComputeWorkGroupInvocations.
  uint32_t maxWorkGroupInvocations = 0;
  /// minStorageBufferOffsetAlignment.
  uint64_t minStorageBufferOffsetAlignment = 1;
  /// maxStorageBufferRange.
  uint64_t maxStorageBufferRange = 0;
  /// min(maxPerStageDescriptorStorageBuffers,
  ///     maxDescriptorSetStorageBuffers).
  uint32_t maxStorageBuffersPerSet = 0;
  /// VkPhysicalDeviceMaintenance3Properties::maxMemoryAllocationSize.
  uint64_t maxAllocationSize = 0;
  /// minTexelBufferOffsetAlignment: every texel binding's offset is a
  /// multiple of it.
  uint64_t minTexelBufferOffsetAlignment = 1;
  /// maxTexelBufferElements: the most texels one buffer view may hold.
  uint64_t maxTexelBufferElements = 0;
  /// min(maxPerStageDescriptorStorageImages,
  ///     maxDescriptorSetStorageImages), which storage texel buffers count
  /// against.
  uint32_t maxStorageImagesPerSet = 0;
  /// Whether VK_FORMAT_R32G32B32A32_SFLOAT has
  /// VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT in its bufferFeatures
  /// (needed by TexelBufferRgba32f bindings).
  bool rgba32fStorageTexelBuffer = false;
  /// Whether compute shaders have subgroup arithmetic
  /// (VkPhysicalDeviceSubgroupProperties: the compute stage, basic and
  /// arithmetic operations), which kernels declaring the SPIR-V capability
  /// GroupNonUniformArithmetic need.
  bool subgroupArithmetic = false;
  /// Whether compute shaders have subgroup shuffles
  /// (VK_SUBGROUP_FEATURE_SHUFFLE_BIT), which kernels declaring the SPIR-V
  /// capability GroupNonUniformShuffle need.
  bool subgroupShuffle = false;
  /// VkPhysicalDeviceSubgroupProperties::subgroupSize (0: not known, a
  /// Vulkan 1.0 device); a kernel's subgroupMultiple must divide it.
  uint32_t subgroupSize = 0;
  /// Whether the device offers the robustBufferAccess feature; a runtime
  /// device is only ever created with it enabled (checkDeviceFeatures).
  bool robustBufferAccess = false;
  /// The most loop iterations one invocation may run, all its loops
  /// together (0: no limit): 65535 on llvmpipe, which silently ends an
  /// invocation's loops there (gallivm's LP_MAX_TGSI_LOOP_ITERATIONS).
  uint64_t maxLoopIterations = 0;
};

/// Checks that a device offers the features the runtime enables on every
/// device it creates: robustBufferAccess, so that no kernel, however
/// hostile, reads or writes outside the ranges bound to it.
Status checkDeviceFeatures(const DeviceLimits &limits);

/// Checks `desc` (already verified) against the limits of a device.
Status verifyForDevice(const ModuleDesc &desc, const DeviceLimits &limits);

/// Serializes `desc` into module file bytes. Writes exactly what `desc`
/// holds, valid or not (tests use this to build broken files).
std::vector<uint8_t> writeCapmod(const ModuleDesc &desc);

/// Writes writeCapmod(desc) to `path`.
Status writeCapmodFile(const std::string &path, const ModuleDesc &desc);

} // namespace capture::rt

#endif // CAPTURE_RT_CAPMOD_H
