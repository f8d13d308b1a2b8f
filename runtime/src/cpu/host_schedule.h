//===- host_schedule.h - An entry's schedule as host calls ------*- C++ -*-===//
//
// Resolved once at load: each dispatch of an entry becomes its kernel's
// entry point, the addresses of its binding ranges in the module's host
// buffers and its workgroup count, so that a run is a loop of calls with
// no lookups.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_CPU_HOST_SCHEDULE_H
#define CAPTURE_RT_CPU_HOST_SCHEDULE_H

#include "capture/rt/host_code.h"
#include "capture/rt/module_desc.h"
#include "capture/rt/status.h"
#include "host_pool.h"

#include <cstdint>
#include <vector>

namespace capture::rt {

/// One dispatch, ready to call.
struct HostLaunch {
  /// The kernel's entry point.
  HostCode::Entry entry = nullptr;
  /// Index into HostSchedule::bindings of the launch's first binding
  /// address (its kernel's bindings follow in order).
  size_t firstBinding = 0;
  /// Workgroups: the entry point runs once for each of 0..groups-1.
  int64_t groups = 0;
  /// Whether its workgroups are split across the pool's threads: only where
  /// the compiler's work estimate pays for the split (kParallelWork).
  bool parallel = false;
};

/// The least work (DispatchDesc::work, multiply-adds) of a launch whose
/// workgroups are split across threads. Measured with capture-bench-drivers
/// on 2 cores: at 2^17 the PPO-64 step's 64x64x64 matmuls were split and
/// the step took ~220 us against ~180 us on one thread; at 2^20 it runs on
/// one thread, while the MLP and PPO-1024 steps still gain 1.3-1.6x.
constexpr uint64_t kParallelWork = 1 << 20;

/// An entry's schedule. Barriers need no call: the launches run in order on
/// one thread, each finished before the next starts.
struct HostSchedule {
  /// The launches, in schedule order.
  std::vector<HostLaunch> launches;
  /// Every launch's binding addresses, back to back.
  std::vector<void *> bindings;
};

/// Resolves `entry`'s schedule: kernel k's entry point is `entries[k]`,
/// buffer b's bytes start at `buffers[b]`. Errors name the dispatch: a
/// workgroup grid that is not [N, 1, 1] (the cpu target's kernels run a
/// 1-D grid).
Result<HostSchedule>
resolveSchedule(const ModuleDesc &desc, const EntryDesc &entry,
                const std::vector<HostCode::Entry> &entries,
                const std::vector<uint8_t *> &buffers);

/// Runs `schedule` on the calling thread and `pool` (its parallel launches),
/// with denormals flushed to zero (FTZ and DAZ) and the caller's
/// floating-point control restored after. With `launchUs`, each launch's
/// wall time in microseconds is appended to it, in schedule order.
void runSchedule(const HostSchedule &schedule, HostPool &pool,
                 std::vector<double> *launchUs = nullptr);

} // namespace capture::rt

#endif // CAPTURE_RT_CPU_HOST_SCHEDULE_H
