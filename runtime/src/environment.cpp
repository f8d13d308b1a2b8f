//===- environment.cpp - Device options from the environment --------------===//

#include "capture/rt/environment.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace capture::rt {

bool validationRequestedByEnv() {
  const char *raw = std::getenv("CAPTURE_VALIDATION");
  std::string v = raw ? raw : "";
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  return v == "1" || v == "true" || v == "on" || v == "yes";
}

DeviceOptions deviceOptionsFromEnvironment(DeviceOptions options) {
  const char *device = std::getenv("CAPTURE_DEVICE");
  if (options.selector.empty() && device && *device) {
    options.selector = device;
    options.selectorSource = "CAPTURE_DEVICE";
  }
  if (validationRequestedByEnv())
    options.validation = true;
  return options;
}

} // namespace capture::rt
