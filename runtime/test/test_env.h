//===- test_env.h - Scoped environment variables for tests ------*- C++ -*-===//

#ifndef CAPTURE_RT_TEST_ENV_H
#define CAPTURE_RT_TEST_ENV_H

#include "capture/rt/environment.h"

#include <cstdlib>
#include <optional>
#include <string>

namespace capture::rt::test {

/// Sets (or, with nullopt, unsets) an environment variable and restores the
/// previous value on destruction. The Vulkan loader reads its variables at
/// instance creation, so this must wrap Device::create.
class ScopedEnv {
public:
  ScopedEnv(const char *name, std::optional<std::string> value) : name(name) {
    if (const char *old = std::getenv(name))
      previous = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (previous)
      setenv(name, previous->c_str(), 1);
    else
      unsetenv(name);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  /// Variable name.
  const char *name;
  /// Value before this object, if any.
  std::optional<std::string> previous;
};

/// The options of a test of the Vulkan path, whose modules have no host
/// code: deviceOptionsFromEnvironment() (CAPTURE_DEVICE picks, as in the
/// tools), whose default then never picks the host device (a GPU, else
/// lavapipe).
inline DeviceOptions vulkanTestOptions() {
  DeviceOptions options = deviceOptionsFromEnvironment();
  options.hostRuledOut = "the test's modules have no host code";
  return options;
}

} // namespace capture::rt::test

#endif // CAPTURE_RT_TEST_ENV_H
