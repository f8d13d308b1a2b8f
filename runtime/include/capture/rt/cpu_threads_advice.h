//===- cpu_threads_advice.h - llvmpipe threads for a module ---*- C++ -*-===//
//-*-===//
//
// llvmpipe forks and joins its thread pool on every dispatch (28-55 us on
// the 2-core machines measured), and reads its thread count once, when the
// instance is created. A step of many small dispatches runs fastest on the
// submitting thread (DeviceOptions::cpuThreads = 0, the runtime's default);
// one whose dispatches each hold a millisecond of work gains from the pool
// (the MLP step: 1.25x). The compiler writes each dispatch's estimated work
// into the module; adviseCpuThreads reads it, so that a program that knows
// its module before it creates the device can choose. The advice is a
// choice of DeviceOptions, never applied behind the caller's back, and a
// user's LP_NUM_THREADS still wins over it.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_CPU_THREADS_ADVICE_H
#define CAPTURE_RT_CPU_THREADS_ADVICE_H

#include "capture/rt/module_desc.h"

#include <cstdint>
#include <string>

namespace capture::rt {

/// The mean work per dispatch (multiply-add equivalents, see
/// DispatchDesc::work) from which llvmpipe's pool pays for its fork and
/// join: about 100 us of work on the submitting thread, where the pool
/// saves ~40% of a dispatch's time and costs ~40 us per dispatch.
constexpr uint64_t kPoolWorkPerDispatch = 1000000;

/// What adviseCpuThreads found.
struct CpuThreadsAdvice {
  /// For DeviceOptions::cpuThreads: 0 (the submitting thread) or
  /// kCpuThreadsDriverDefault (llvmpipe's pool).
  int threads = 0;
  /// The entry the advice follows: the one with the most estimated work.
  std::string entry;
  /// Its estimated work per dispatch, on average; 0 without estimates.
  uint64_t workPerDispatch = 0;
  /// The reason in words, e.g. "entry 'train': 5.0M work per dispatch >=
  /// 1.0M", for a tool to print beside the setting.
  std::string reason;
};

/// llvmpipe's pool when the entry with the most estimated work averages
/// at least kPoolWorkPerDispatch per dispatch, else the submitting thread
/// (also for a module without estimates or without dispatches).
CpuThreadsAdvice adviseCpuThreads(const ModuleDesc &desc);

} // namespace capture::rt

#endif // CAPTURE_RT_CPU_THREADS_ADVICE_H
