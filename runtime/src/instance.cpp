//===- instance.cpp - The Vulkan instance and its validation messages -----===//

#include "device_impl.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace capture::rt {
namespace {

constexpr const char *kValidationLayer = "VK_LAYER_KHRONOS_validation";
/// Validation messages kept for Device::validationMessages.
constexpr size_t kMaxStoredMessages = 64;

bool hasInstanceExtension(const char *layer, const char *name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceExtensionProperties(layer, &count, nullptr) !=
      VK_SUCCESS)
    return false;
  std::vector<VkExtensionProperties> props(count);
  if (vkEnumerateInstanceExtensionProperties(layer, &count, props.data()) !=
      VK_SUCCESS)
    return false;
  return std::any_of(props.begin(), props.end(),
                     [&](const VkExtensionProperties &p) {
                       return std::strcmp(p.extensionName, name) == 0;
                     });
}

VKAPI_ATTR VkBool32 VKAPI_CALL debugCallback(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity,
    VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *userData) {
  auto *impl = static_cast<Device::Impl *>(userData);
  std::string text = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT
                         ? "error: "
                         : "warning: ";
  if (data && data->pMessageIdName)
    text += std::string("[") + data->pMessageIdName + "] ";
  if (data && data->pMessage)
    text += data->pMessage;
  impl->addValidationMessage(text);
  return VK_FALSE; // Never abort the call that triggered the message.
}

VkDebugUtilsMessengerCreateInfoEXT messengerInfo(Device::Impl *impl) {
  VkDebugUtilsMessengerCreateInfoEXT info{};
  info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = debugCallback;
  info.pUserData = impl;
  return info;
}

} // namespace

std::string installHint() {
  std::string hint =
      "Install mesa-vulkan-drivers for lavapipe, the CPU Vulkan device "
      "(e.g. `apt-get install mesa-vulkan-drivers`), or a GPU's Vulkan "
      "driver";
  for (const char *var : {"VK_ICD_FILENAMES", "VK_DRIVER_FILES"})
    if (const char *v = std::getenv(var))
      hint += std::string("; check ") + var + " (set to '" + v + "')";
  return hint + ".";
}

Status createInstance(Device::Impl &impl) {
  uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion(&loaderVersion) != VK_SUCCESS)
    loaderVersion = VK_API_VERSION_1_0;
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "capture";
  app.pEngineName = "capture-rt";
  app.apiVersion = std::min<uint32_t>(loaderVersion, VK_API_VERSION_1_3);

  std::vector<const char *> layers, extensions;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  // MoltenVK and other portability drivers are only listed when asked for.
  if (hasInstanceExtension(nullptr,
                           VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }

  VkValidationFeatureEnableEXT syncValidation =
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT features{};
  VkDebugUtilsMessengerCreateInfoEXT messenger = messengerInfo(&impl);
  if (impl.validation) {
    if (!validationLayerAvailable())
      return Status::error(
          std::string("validation was requested (DeviceOptions::validation; "
                      "the tools set it for CAPTURE_VALIDATION=1) but the "
                      "layer ") +
          kValidationLayer +
          " is not installed: install vulkan-validationlayers (Debian/"
          "Ubuntu) or the Vulkan SDK, or turn validation off");
    if (!hasInstanceExtension(kValidationLayer,
                              VK_EXT_DEBUG_UTILS_EXTENSION_NAME) &&
        !hasInstanceExtension(nullptr, VK_EXT_DEBUG_UTILS_EXTENSION_NAME))
      return Status::error(std::string("validation was requested but ") +
                           VK_EXT_DEBUG_UTILS_EXTENSION_NAME +
                           " is not available to report its messages");
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (hasInstanceExtension(kValidationLayer,
                             VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME))
      extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = &syncValidation;
    // The messenger in pNext covers vkCreateInstance/vkDestroyInstance.
    features.pNext = &messenger;
    info.pNext = &features;
  }
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();

  VkResult r = vkCreateInstance(&info, nullptr, &impl.instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED)
    return Status::error("no Vulkan driver found (vkCreateInstance: " +
                         vkResultName(r) + "). " + installHint());
  if (r != VK_SUCCESS)
    return vkCheckHandle(r, impl.instance, "vkCreateInstance",
                         "the capture runtime");
  if (!impl.validation)
    return Status::ok();
  auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(impl.instance, "vkCreateDebugUtilsMessengerEXT"));
  impl.destroyMessenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(impl.instance, "vkDestroyDebugUtilsMessengerEXT"));
  if (!create || !impl.destroyMessenger)
    return Status::error("validation: vkCreateDebugUtilsMessengerEXT is not "
                         "available although VK_EXT_debug_utils is enabled");
  return vkCheckHandle(
      create(impl.instance, &messenger, nullptr, &impl.messenger),
      impl.messenger, "vkCreateDebugUtilsMessengerEXT", "validation messages");
}

bool validationLayerAvailable() {
  uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS)
    return false;
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) != VK_SUCCESS)
    return false;
  return std::any_of(layers.begin(), layers.end(),
                     [](const VkLayerProperties &l) {
                       return std::strcmp(l.layerName, kValidationLayer) == 0;
                     });
}

void Device::Impl::addValidationMessage(const std::string &message) {
  ++messageCount;
  if (printMessages)
    std::fprintf(stderr, "capture-rt: validation %s\n", message.c_str());
  {
    std::lock_guard<std::mutex> lock(messagesMutex);
    if (messages.size() < kMaxStoredMessages)
      messages.push_back(message);
  }
  if (onMessage)
    onMessage(message);
}

} // namespace capture::rt
