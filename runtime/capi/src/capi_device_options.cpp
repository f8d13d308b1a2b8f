//===- capi_device_options.cpp - Device options and llvmpipe's threads ----===//
//
// capture_device_create_with_options, the thread advice and the wait
// policy: the C face of rt::DeviceOptions and rt::adviseCpuThreads. Every field
// of the options is checked before a device is made, so that a typo in a
// caller's struct (an uninitialized struct_size, a validation of 2) is an error
// rather than a silently different device.
//
//===----------------------------------------------------------------------===//

#include "capi_internal.h"

#include "capture/rt/capmod.h"
#include "capture/rt/cpu_threads_advice.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

using namespace capture::rt;
using namespace capture::capi;

void capture_device_options_init(capture_device_options *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->cpu_threads = CAPTURE_CPU_THREADS_UNSET;
  options->wait_policy = CAPTURE_WAIT_AUTO;
}

/// struct_size of the layout before wait_policy was added.
constexpr size_t kSizeBeforeWaitPolicy =
    offsetof(capture_device_options, wait_policy);

/// The DeviceOptions `options` stand for, or an INVALID_ARGUMENT status in
/// `err` naming the field that is wrong.
static DeviceOptions toDeviceOptions(const char *fn,
                                     const capture_device_options &options,
                                     capture_status &err) {
  DeviceOptions out;
  auto invalid = [&](const std::string &message) {
    err = fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn, message);
    return out;
  };
  bool hasWaitPolicy = options.struct_size == sizeof(capture_device_options);
  if (!hasWaitPolicy && options.struct_size != kSizeBeforeWaitPolicy)
    return invalid("options->struct_size is " +
                   std::to_string(options.struct_size) + ", expected " +
                   std::to_string(sizeof(capture_device_options)) +
                   " (sizeof(capture_device_options)), or " +
                   std::to_string(kSizeBeforeWaitPolicy) +
                   " for the layout before wait_policy: fill the options "
                   "with capture_device_options_init first");
  // An older caller's struct ends before the field: never read it.
  int32_t waitPolicy = hasWaitPolicy ? options.wait_policy : CAPTURE_WAIT_AUTO;
  if (waitPolicy < CAPTURE_WAIT_AUTO || waitPolicy > CAPTURE_WAIT_SPIN)
    return invalid("options->wait_policy is " + std::to_string(waitPolicy) +
                   ", expected CAPTURE_WAIT_AUTO (0), CAPTURE_WAIT_BLOCK (1) "
                   "or CAPTURE_WAIT_SPIN (2)");
  if (options.cpu_threads < CAPTURE_CPU_THREADS_UNSET)
    return invalid("options->cpu_threads is " +
                   std::to_string(options.cpu_threads) +
                   ", expected a thread count >= 0, "
                   "CAPTURE_CPU_THREADS_POOL (-1) or "
                   "CAPTURE_CPU_THREADS_UNSET (-2)");
  if (options.validation != 0 && options.validation != 1)
    return invalid("options->validation is " +
                   std::to_string(options.validation) + ", expected 0 or 1");
  if (options.selector)
    out.selector = options.selector;
  if (options.cpu_threads != CAPTURE_CPU_THREADS_UNSET)
    out.cpuThreads = options.cpu_threads == CAPTURE_CPU_THREADS_POOL
                         ? kCpuThreadsDriverDefault
                         : options.cpu_threads;
  out.validation = options.validation == 1;
  out.memoryLimit = options.memory_limit;
  out.waitPolicy = waitPolicy == CAPTURE_WAIT_BLOCK  ? WaitPolicy::Block
                   : waitPolicy == CAPTURE_WAIT_SPIN ? WaitPolicy::Spin
                                                     : WaitPolicy::Auto;
  return out;
}

capture_status
capture_device_create_with_options(const capture_device_options *options,
                                   capture_device **out_device) {
  const char *fn = "capture_device_create_with_options";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, options);
    CAPTURE_CHECK_NOT_NULL(fn, out_device);
    capture_status err = nullptr;
    DeviceOptions deviceOptions = toDeviceOptions(fn, *options, err);
    if (err)
      return err;
    return createDevice(fn, deviceOptions, out_device);
  });
}

capture_status capture_device_cpu_threads(const capture_device *device,
                                          int32_t *out_threads,
                                          const char **out_description) {
  const char *fn = "capture_device_cpu_threads";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, device);
    const CpuThreadsSetting &setting = device->device->cpuThreadsSetting();
    if (out_threads)
      *out_threads = setting.threads ? *setting.threads
                                     : int32_t{CAPTURE_CPU_THREADS_POOL};
    if (out_description)
      *out_description = device->cpuThreads.c_str();
    return nullptr;
  });
}

capture_status capture_device_wait(const capture_device *device,
                                   int32_t *out_policy,
                                   const char **out_description) {
  const char *fn = "capture_device_wait";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, device);
    if (out_policy)
      *out_policy = device->device->waitSetting().policy == WaitPolicy::Spin
                        ? int32_t{CAPTURE_WAIT_SPIN}
                        : int32_t{CAPTURE_WAIT_BLOCK};
    if (out_description)
      *out_description = device->wait.c_str();
    return nullptr;
  });
}

/// The advice for a module read by `read`, written to the out-parameters.
template <typename Read>
static capture_status advise(const char *fn, Read &&read, int32_t *out_threads,
                             char *reason, size_t reason_size) {
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, out_threads);
    if (!reason && reason_size != 0)
      return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                  "reason is NULL but reason_size is " +
                      std::to_string(reason_size) + ", expected 0");
    Result<ModuleDesc> desc = read();
    if (desc.isError())
      return fromStatus(fn, desc.status());
    CpuThreadsAdvice advice = adviseCpuThreads(desc.value());
    *out_threads = advice.threads == 0 ? 0 : int32_t{CAPTURE_CPU_THREADS_POOL};
    if (reason_size != 0) {
      size_t n = std::min(advice.reason.size(), reason_size - 1);
      std::memcpy(reason, advice.reason.data(), n);
      reason[n] = '\0';
    }
    return nullptr;
  });
}

capture_status capture_advise_cpu_threads_file(const char *path,
                                               int32_t *out_threads,
                                               char *reason,
                                               size_t reason_size) {
  const char *fn = "capture_advise_cpu_threads_file";
  if (!path)
    return nullArg(fn, "path");
  return advise(
      fn, [&] { return readCapmodFile(path); }, out_threads, reason,
      reason_size);
}

capture_status capture_advise_cpu_threads_bytes(const void *data, size_t size,
                                                int32_t *out_threads,
                                                char *reason,
                                                size_t reason_size) {
  const char *fn = "capture_advise_cpu_threads_bytes";
  if (!data)
    return nullArg(fn, "data");
  return advise(
      fn, [&] { return readCapmod(static_cast<const uint8_t *>(data), size); },
      out_threads, reason, reason_size);
}
