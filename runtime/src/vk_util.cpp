//===- vk_util.cpp - Vulkan results as Status -----------------------------===//

#include "vk_util.h"

namespace capture::rt {

std::string vkResultName(VkResult result) {
  switch (result) {
#define CASE(name)                                                             \
  case name:                                                                   \
    return #name;
    CASE(VK_SUCCESS)
    CASE(VK_NOT_READY)
    CASE(VK_TIMEOUT)
    CASE(VK_EVENT_SET)
    CASE(VK_EVENT_RESET)
    CASE(VK_INCOMPLETE)
    CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    CASE(VK_ERROR_INITIALIZATION_FAILED)
    CASE(VK_ERROR_DEVICE_LOST)
    CASE(VK_ERROR_MEMORY_MAP_FAILED)
    CASE(VK_ERROR_LAYER_NOT_PRESENT)
    CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    CASE(VK_ERROR_TOO_MANY_OBJECTS)
    CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    CASE(VK_ERROR_FRAGMENTED_POOL)
    CASE(VK_ERROR_UNKNOWN)
    CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    CASE(VK_ERROR_FRAGMENTATION)
    CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    CASE(VK_PIPELINE_COMPILE_REQUIRED)
    CASE(VK_ERROR_VALIDATION_FAILED_EXT)
    CASE(VK_ERROR_INVALID_SHADER_NV)
#undef CASE
  default:
    return "VkResult(" + std::to_string(static_cast<int>(result)) + ")";
  }
}

std::string vkResultHint(VkResult result) {
  switch (result) {
  case VK_ERROR_DEVICE_LOST:
    return "the device was lost: the driver reset it after a hang, a fault "
           "or a timeout; every later submission on this Device fails, so "
           "destroy its modules and the Device and create new ones";
  case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    return "out of device memory: free other modules or buffers, use a "
           "smaller model or batch, or a device with more memory";
  case VK_ERROR_OUT_OF_HOST_MEMORY:
    return "out of host memory";
  case VK_ERROR_TOO_MANY_OBJECTS:
    return "the driver's limit on objects of this kind was reached";
  case VK_ERROR_FEATURE_NOT_PRESENT:
  case VK_ERROR_EXTENSION_NOT_PRESENT:
  case VK_ERROR_LAYER_NOT_PRESENT:
    return "the driver or loader does not provide it";
  default:
    return "";
  }
}

Status vkCheck(VkResult result, const char *call, const std::string &what) {
  if (result == VK_SUCCESS)
    return Status::ok();
  std::string hint = vkResultHint(result);
  bool memory = result == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
                result == VK_ERROR_OUT_OF_HOST_MEMORY;
  return Status::error(
      std::string(call) + " failed" + (what.empty() ? "" : " for " + what) +
          ": " + vkResultName(result) + (hint.empty() ? "" : " (" + hint + ")"),
      memory ? StatusCode::OutOfMemory : StatusCode::Error);
}

std::string vkVersionString(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." +
         std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

Status beginOneTimeCommands(VkCommandBuffer cmd, const std::string &what) {
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  return vkCheck(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer",
                 what);
}

Status beginReusableCommands(VkCommandBuffer cmd, const std::string &what) {
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  return vkCheck(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer",
                 what);
}

} // namespace capture::rt
