//===- vk_util.h - Vulkan results as Status ---------------------*- C++ -*-===//

#ifndef CAPTURE_RT_VK_UTIL_H
#define CAPTURE_RT_VK_UTIL_H

#include "capture/rt/status.h"

#include <vulkan/vulkan.h>

#include <string>

namespace capture::rt {

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY", or "VkResult(-1234)" for unknown codes.
std::string vkResultName(VkResult result);

/// Success when `result` is VK_SUCCESS; else an error naming the call, what
/// it was for and the result: "vkCreateComputePipelines failed for kernel
/// 'matmul_0': VK_ERROR_OUT_OF_DEVICE_MEMORY".
Status vkCheck(VkResult result, const char *call, const std::string &what);

/// "1.3.230" for a VK_MAKE_API_VERSION value.
std::string vkVersionString(uint32_t version);

} // namespace capture::rt

#endif // CAPTURE_RT_VK_UTIL_H
