//===- vk_util.h - Vulkan results as Status ---------------------*- C++ -*-===//
//
// The one place where a VkResult becomes a message: every checked Vulkan
// call of the runtime goes through vkCheck or vkCheckHandle, so all errors
// read alike ("CALL failed for OBJECT: VK_ERROR_..., (what it means)").
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_VK_UTIL_H
#define CAPTURE_RT_VK_UTIL_H

#include "capture/rt/status.h"

#include <vulkan/vulkan.h>

#include <string>

namespace capture::rt {

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY", or "VkResult(-1234)" for unknown codes.
std::string vkResultName(VkResult result);

/// What `result` means for the caller, for the results that need saying
/// (device loss, out of memory, a missing driver feature); empty otherwise.
std::string vkResultHint(VkResult result);

/// Success when `result` is VK_SUCCESS; else an error naming the call, what
/// it was for, the result and, when vkResultHint has one, what it means:
/// "vkCreateComputePipelines failed for kernel 'matmul_0':
/// VK_ERROR_OUT_OF_DEVICE_MEMORY (out of device memory: ...)".
Status vkCheck(VkResult result, const char *call, const std::string &what);

/// Begins recording `cmd` for one submission (ONE_TIME_SUBMIT); errors name
/// `what` is being recorded.
Status beginOneTimeCommands(VkCommandBuffer cmd, const std::string &what);

/// Begins recording `cmd` for any number of submissions (each after the
/// previous one completed).
Status beginReusableCommands(VkCommandBuffer cmd, const std::string &what);

/// vkCheck for a call that creates `handle`: on failure also sets `handle`
/// back to VK_NULL_HANDLE, since Vulkan leaves a failed call's outputs
/// undefined and the owner's destructor must not destroy garbage. Use as
/// `vkCheckHandle(vkCreateFence(d, &info, nullptr, &fence), fence, ...)`:
/// the call has run (and written `handle`) before this function starts.
template <typename Handle>
Status vkCheckHandle(VkResult result, Handle &handle, const char *call,
                     const std::string &what) {
  if (result != VK_SUCCESS)
    handle = VK_NULL_HANDLE;
  return vkCheck(result, call, what);
}

/// "1.3.230" for a VK_MAKE_API_VERSION value.
std::string vkVersionString(uint32_t version);

} // namespace capture::rt

#endif // CAPTURE_RT_VK_UTIL_H
