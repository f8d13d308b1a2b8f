//===- cpu_threads.h - llvmpipe's thread count ------------------*- C++ -*-===//
//
// llvmpipe (lavapipe) reads env LP_NUM_THREADS when the instance creates
// its physical devices, and forks and joins a pool of that many threads on
// every vkCmdDispatch. Capture's steps are many small dispatches, so the
// runtime runs them on the submitting thread unless told otherwise
// (DeviceOptions::cpuThreads); a user's LP_NUM_THREADS always wins.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_CPU_THREADS_H
#define CAPTURE_RT_CPU_THREADS_H

#include "capture/rt/device.h"

namespace capture::rt {

/// The setting for `options` and the current environment; an error for a
/// DeviceOptions::cpuThreads below kCpuThreadsDriverDefault.
Result<CpuThreadsSetting> chooseCpuThreads(const DeviceOptions &options);

/// While alive, LP_NUM_THREADS holds the setting's count when the runtime
/// chose it (not from the environment, not the driver default); restores
/// the environment as it was on destruction, so that the variable never
/// outlives Device::create and a later Device sees only the user's value.
class ScopedCpuThreadsEnv {
public:
  explicit ScopedCpuThreadsEnv(const CpuThreadsSetting &setting);
  ~ScopedCpuThreadsEnv();
  ScopedCpuThreadsEnv(const ScopedCpuThreadsEnv &) = delete;
  ScopedCpuThreadsEnv &operator=(const ScopedCpuThreadsEnv &) = delete;

private:
  /// Whether this object set LP_NUM_THREADS (and so unsets it).
  bool set = false;
};

} // namespace capture::rt

#endif // CAPTURE_RT_CPU_THREADS_H
