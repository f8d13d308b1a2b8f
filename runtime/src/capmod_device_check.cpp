//===- capmod_device_check.cpp - A ModuleDesc against one device ---------===//
//
// What a module needs of the device it is loaded on (the Vulkan version,
// binding alignment, workgroup sizes and counts, texel-buffer sizes,
// capabilities and llvmpipe's loop limit), checked at load before any
// Vulkan object of the module exists.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"

#include "check_util.h"
#include "spirv_check.h"

#include <algorithm>

namespace capture::rt {

Status checkDeviceFeatures(const DeviceLimits &limits) {
  if (!limits.robustBufferAccess)
    return Status::error(
        "device '" + limits.deviceName +
        "' does not offer robustBufferAccess: the runtime enables it on "
        "every device so that a kernel stays inside the ranges bound to it "
        "(every conformant Vulkan driver offers it; update the driver or "
        "choose another device)");
  return Status::ok();
}

Status verifyForDevice(const ModuleDesc &desc, const DeviceLimits &limits) {
  auto fail = [&](const std::string &msg) {
    return Status::error("capmod: " + msg + " on device '" + limits.deviceName +
                         "'");
  };
  auto version = [](uint32_t v) {
    return std::to_string(v >> 22) + "." + std::to_string((v >> 12) & 0x3ff) +
           "." + std::to_string(v & 0xfff);
  };
  // Compare without the variant bits (29..31).
  if ((desc.target.vulkanApiVersion & 0x1fffffff) >
      (limits.apiVersion & 0x1fffffff))
    return fail("module needs Vulkan " + version(desc.target.vulkanApiVersion) +
                ", but only " + version(limits.apiVersion) + " is available");
  uint64_t minAlign =
      std::max<uint64_t>(limits.minStorageBufferOffsetAlignment, 1);
  if (desc.target.bindingAlignment % minAlign != 0)
    return fail("target.binding_alignment " +
                str(desc.target.bindingAlignment) +
                " is not a multiple of minStorageBufferOffsetAlignment " +
                str(minAlign));
  for (size_t i = 0; i < desc.buffers.size(); ++i)
    if (limits.maxAllocationSize &&
        desc.buffers[i].size > limits.maxAllocationSize)
      return fail("buffer " + str(i) + " (" +
                  bufferKindName(desc.buffers[i].kind) + ") is " +
                  str(desc.buffers[i].size) +
                  " bytes, more than the largest allocation (" +
                  str(limits.maxAllocationSize) + " bytes)");
  static const char *axis[] = {"x", "y", "z"};
  for (size_t i = 0; i < desc.kernels.size(); ++i) {
    const KernelDesc &k = desc.kernels[i];
    std::string where = "kernel " + str(i) + " ('" + k.name + "')";
    uint64_t invocations = 1;
    for (size_t d = 0; d < 3; ++d) {
      if (k.workgroupSize[d] > limits.maxWorkGroupSize[d])
        return fail(where + ": workgroup_size " + axis[d] + " is " +
                    str(k.workgroupSize[d]) + ", more than the limit " +
                    str(limits.maxWorkGroupSize[d]));
      invocations *= k.workgroupSize[d];
    }
    if (invocations > limits.maxWorkGroupInvocations)
      return fail(where + ": workgroup has " + str(invocations) +
                  " invocations, more than the limit " +
                  str(limits.maxWorkGroupInvocations));
    uint32_t texel = 0;
    for (uint32_t b = 0; b < k.numBindings; ++b)
      texel += bindingKindOf(k, b) == BindingKind::TexelBufferRgba32f;
    if (k.numBindings - texel > limits.maxStorageBuffersPerSet)
      return fail(where + ": " + str(k.numBindings - texel) +
                  " storage buffer bindings, more than the limit " +
                  str(limits.maxStorageBuffersPerSet));
    if (texel > limits.maxStorageImagesPerSet)
      return fail(where + ": " + str(texel) +
                  " texel buffer bindings, more than the limit of storage "
                  "images per set " +
                  str(limits.maxStorageImagesPerSet));
    if (!limits.subgroupArithmetic &&
        kernelDeclaresCapability(k, kSpirvCapabilityGroupNonUniformArithmetic))
      return fail(where +
                  " uses subgroup arithmetic (SPIR-V capability "
                  "GroupNonUniformArithmetic), which compute shaders "
                  "on this device lack (VkPhysicalDeviceSubgroupProperties)");
    if (!limits.subgroupShuffle &&
        kernelDeclaresCapability(k, kSpirvCapabilityGroupNonUniformShuffle))
      return fail(where +
                  " uses subgroup shuffles (SPIR-V capability "
                  "GroupNonUniformShuffle), which compute shaders on this "
                  "device lack (VkPhysicalDeviceSubgroupProperties): compile "
                  "the module with capture-aot --tile-shuffles=false");
    if (k.subgroupMultiple != 0 &&
        (limits.subgroupSize == 0 ||
         limits.subgroupSize % k.subgroupMultiple != 0))
      return fail(
          where + " shares values within groups of " + str(k.subgroupMultiple) +
          " lanes, so it needs subgroups of a multiple of " +
          str(k.subgroupMultiple) + " invocations; this device's have " +
          str(limits.subgroupSize) +
          " (compile the module with capture-aot "
          "--tile-shuffles=false, which needs none)");
    if (limits.maxLoopIterations != 0 &&
        k.loopIterations > limits.maxLoopIterations)
      return fail(where + " runs up to " + str(k.loopIterations) +
                  " loop iterations in one invocation (compile the module "
                  "with capture-aot --target=lavapipe, which unrolls them): "
                  "llvmpipe ends an invocation's loops after " +
                  str(limits.maxLoopIterations) +
                  ", which would make the results wrong");
    if (texel && !limits.rgba32fStorageTexelBuffer)
      return fail(where + " has TexelBufferRgba32f bindings, but "
                          "VK_FORMAT_R32G32B32A32_SFLOAT has no "
                          "VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT in its "
                          "bufferFeatures");
  }
  for (const EntryDesc &e : desc.entries) {
    for (size_t c = 0; c < e.commands.size(); ++c) {
      if (e.commands[c].kind != CommandDesc::Kind::Dispatch)
        continue;
      const DispatchDesc &d = e.commands[c].dispatch;
      std::string where = "dispatch " + str(c) + " of entry '" + e.name + "'";
      for (size_t g = 0; g < 3; ++g)
        if (d.groups[g] > limits.maxWorkGroupCount[g])
          return fail(where + ": groups " + axis[g] + " is " +
                      str(d.groups[g]) + ", more than the limit " +
                      str(limits.maxWorkGroupCount[g]));
      const KernelDesc &k = desc.kernels[d.kernel];
      for (size_t b = 0; b < d.bindings.size(); ++b) {
        const BufferRangeDesc &r = d.bindings[b];
        if (bindingKindOf(k, b) == BindingKind::StorageBuffer) {
          if (r.size > limits.maxStorageBufferRange)
            return fail(where + ": binding " + str(b) + " is " + str(r.size) +
                        " bytes, more than maxStorageBufferRange " +
                        str(limits.maxStorageBufferRange));
          continue;
        }
        std::string bw = where + ": binding " + str(b) +
                         " (TexelBufferRgba32f of kernel '" + k.name + "')";
        uint64_t align =
            std::max<uint64_t>(limits.minTexelBufferOffsetAlignment, 1);
        if (r.offset % align != 0)
          return fail(bw + " offset " + str(r.offset) +
                      " is not a multiple of minTexelBufferOffsetAlignment " +
                      str(align));
        if (r.size / kRgba32fTexelBytes > limits.maxTexelBufferElements)
          return fail(bw + " is " + str(r.size / kRgba32fTexelBytes) +
                      " texels (" + str(r.size) +
                      " bytes), more than maxTexelBufferElements " +
                      str(limits.maxTexelBufferElements));
      }
    }
  }
  return Status::ok();
}

} // namespace capture::rt
