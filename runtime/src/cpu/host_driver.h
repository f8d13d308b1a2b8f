//===- host_driver.h - The host driver behind rt::Module --------*- C++ -*-===//
//
// A module loaded on the host device (selector "host") runs its kernels'
// host code (the cpu target): its buffers live in host memory and an
// entry's schedule is a loop of calls, one per workgroup, on the calling
// thread and a pool. This is the part that differs from the Vulkan driver;
// Module (module.cpp, host_replay.cpp) does the rest through the core
// (core/entry_io.h): matching a call, packing, the training step's inputs
// and verdicts.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_CPU_HOST_DRIVER_H
#define CAPTURE_RT_CPU_HOST_DRIVER_H

#include "capture/rt/host_code.h"
#include "capture/rt/module_desc.h"
#include "capture/rt/status.h"

#include "host_pool.h"
#include "host_schedule.h"

#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

namespace capture::rt {

/// A module's host code, buffers and resolved schedules.
class HostDriver {
public:
  /// Loads `desc`'s host code (refused, naming what is missing, when the
  /// module has none or the machine lacks its ISA level), allocates its
  /// buffers zeroed (64-byte aligned), resolves every entry's schedule and
  /// starts `threads` - 1 workers. With `sharedWeights`, that memory (of
  /// another module's driver, at least as large) is the Weights buffer.
  /// `desc` must be verified and outlive the driver.
  static Result<std::unique_ptr<HostDriver>>
  load(const ModuleDesc &desc, unsigned threads,
       std::shared_ptr<uint8_t> sharedWeights = nullptr);

  /// Where buffer `index` (of ModuleDesc::buffers) starts.
  uint8_t *buffer(uint32_t index) const { return bases[index]; }

  /// Buffer `index`'s memory, to share it with another module.
  std::shared_ptr<uint8_t> memoryOf(uint32_t index) const {
    return memory[index];
  }

  /// Threads that run a schedule, the caller included.
  unsigned threads() const { return pool->threads(); }

  /// Runs entry `entry`'s schedule (inputs already in its Input buffer);
  /// with `launchUs`, appends each launch's wall time (microseconds).
  void run(size_t entry, std::vector<double> *launchUs = nullptr) const {
    runSchedule(schedules[entry], *pool, launchUs);
  }

private:
  HostDriver() = default;
  /// The loaded host code.
  std::optional<HostCode> code;
  /// One allocation per buffer (null for an empty one), freed with free()
  /// by its last user (a shared Weights buffer).
  std::vector<std::shared_ptr<uint8_t>> memory;
  /// Where each buffer's bytes start.
  std::vector<uint8_t *> bases;
  /// Per entry, its resolved schedule.
  std::vector<HostSchedule> schedules;
  /// The threads.
  std::unique_ptr<HostPool> pool;
};

} // namespace capture::rt

#endif // CAPTURE_RT_CPU_HOST_DRIVER_H
