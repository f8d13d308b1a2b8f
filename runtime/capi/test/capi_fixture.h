//===- capi_fixture.h - Helpers for the C API tests -------------*- C++ -*-===//
//
// One capture_device per suite (creating a Vulkan instance is the slow part),
// modules built by runtime/test's helpers and loaded from memory, and status
// checks that free what they inspect.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_CAPI_TEST_FIXTURE_H
#define CAPTURE_CAPI_TEST_FIXTURE_H

#include "capture/capture.h"

#include "capture/rt/capmod.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace capture::capi::test {

/// A status freed on destruction.
struct StatusDeleter {
  void operator()(capture_status_s *s) const { capture_status_free(s); }
};
using OwnedStatus = std::unique_ptr<capture_status_s, StatusDeleter>;

/// The message of `s` (freed), "" on success.
inline std::string takeMessage(capture_status s) {
  OwnedStatus owned(s);
  return capture_status_message(s);
}

/// Succeeds when `s` is NULL; else fails with its message (and frees it).
#define CAPI_ASSERT_OK(expr)                                                   \
  do {                                                                         \
    capture_status capiStatus_ = (expr);                                       \
    ASSERT_EQ(capiStatus_, nullptr)                                            \
        << ::capture::capi::test::takeMessage(capiStatus_);                    \
  } while (false)
#define CAPI_EXPECT_OK(expr)                                                   \
  do {                                                                         \
    capture_status capiStatus_ = (expr);                                       \
    EXPECT_EQ(capiStatus_, nullptr)                                            \
        << ::capture::capi::test::takeMessage(capiStatus_);                    \
  } while (false)

/// The code and message of an error status, which it frees.
struct Error {
  capture_code code;
  std::string message;
};

/// Takes `s` apart (frees it); CAPTURE_STATUS_OK and "" for NULL.
inline Error error(capture_status s) {
  capture_code code = capture_status_code(s);
  return {code, takeMessage(s)};
}

/// Matches an Error of `code` whose message contains every one of `parts`.
MATCHER_P2(IsError, code, parts, "") {
  if (arg.code != code) {
    *result_listener << "code " << arg.code << " (" << arg.message << ")";
    return false;
  }
  for (const std::string &p : std::vector<std::string>(parts))
    if (arg.message.find(p) == std::string::npos) {
      *result_listener << "message \"" << arg.message << "\" lacks \"" << p
                       << "\"";
      return false;
    }
  return true;
}

/// Shorthand for IsError with a list of message parts.
inline auto isError(capture_code code, std::vector<std::string> parts) {
  return IsError(code, parts);
}

/// A module handle destroyed on destruction.
struct ModuleDeleter {
  void operator()(capture_module *m) const { capture_module_destroy(m); }
};
using OwnedModule = std::unique_ptr<capture_module, ModuleDeleter>;

/// Creates the device the environment asks for (as the tools do: the
/// validation ctest runs set CAPTURE_VALIDATION=1) once per suite.
class CapiTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    capture_status s = capture_device_create_from_environment(&device);
    if (s)
      deviceError = takeMessage(s);
  }
  static void TearDownTestSuite() {
    capture_device_destroy(device);
    device = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(device, nullptr) << "no Vulkan device: " << deviceError;
  }

  /// Serializes `desc` and loads it through capture_module_load_bytes
  /// (null, with a failed expectation, on error).
  static OwnedModule load(const rt::ModuleDesc &desc) {
    std::vector<uint8_t> bytes = rt::writeCapmod(desc);
    capture_module *m = nullptr;
    capture_status s =
        capture_module_load_bytes(device, bytes.data(), bytes.size(), &m);
    EXPECT_EQ(s, nullptr) << takeMessage(s);
    return OwnedModule(m);
  }

  /// The suite's device.
  inline static capture_device *device = nullptr;
  /// Why there is no device, when there is none.
  inline static std::string deviceError;
};

/// A view of `values` (f32) named `name` with shape `shape`.
inline capture_tensor_view f32View(const char *name,
                                   const std::vector<int64_t> &shape,
                                   std::vector<float> &values) {
  return {name,
          CAPTURE_DTYPE_F32,
          static_cast<int32_t>(shape.size()),
          shape.empty() ? nullptr : shape.data(),
          values.data(),
          values.size() * sizeof(float)};
}

} // namespace capture::capi::test

#endif // CAPTURE_CAPI_TEST_FIXTURE_H
