//===- wait.h - How the runtime waits for its submissions -------*- C++ -*-===//
//
// On lavapipe without its pool, a step's dispatches run on the driver's
// queue thread while the submitting thread waits. A blocked waiter is woken
// through the kernel once that thread signals the fence: on a virtual
// machine that costs tens of microseconds per step, a tenth of a small
// training step (docs/benchmarks.md). WaitPolicy::Spin trades a CPU for it:
// sleep until shortly before the end that recent waits predict, then poll.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_WAIT_H
#define CAPTURE_RT_WAIT_H

#include "capture/rt/device.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace capture::rt {

/// The recent waits of one kind of submission (an entry's replay), which
/// predict the next one: the least of the last few, since a wait can be
/// late (a slow wake-up, a preempted queue thread) but never early.
class WaitHistory {
public:
  /// Records a wait that took `ns` nanoseconds, from its start until the
  /// fence was seen signalled.
  void add(uint64_t ns);
  /// The expected length of the next wait; absent before the first.
  std::optional<uint64_t> expectedNs() const;

private:
  /// How many waits are kept.
  static constexpr size_t kSize = 8;
  /// The last waits, in a ring.
  std::array<uint64_t, kSize> waits{};
  /// How many of `waits` hold a wait (at most kSize).
  size_t count = 0;
  /// Where the next wait goes in `waits`.
  size_t next = 0;
};

/// The times that shape a spinning wait; fields of Device::Impl so that
/// tests can make every path happen.
struct SpinTimes {
  /// How long before the predicted end the waiter stops sleeping: more
  /// than a timed sleep's late wake-up on a loaded virtual machine (tens of
  /// microseconds), so that the poll starts before the fence is signalled.
  uint64_t sleepMarginNs = 200'000;
  /// How long past the predicted end the waiter goes on polling, at least
  /// (half the prediction when that is more): a step later than that (a
  /// preempted queue thread, changed work) is waited for blocked, so that
  /// a waiter never burns a CPU for long.
  uint64_t lateSpinNs = 200'000;
  /// How long a waiter with no history (a first replay, eager dispatches,
  /// uploads) polls before it blocks.
  uint64_t firstSpinNs = 5'000'000;
};

/// Device::Impl's counters behind WaitCounts (modules on other threads may
/// wait on the same device at once).
struct AtomicWaitCounts {
  /// WaitCounts::blocked.
  std::atomic<uint64_t> blocked{0};
  /// WaitCounts::slept.
  std::atomic<uint64_t> slept{0};
  /// WaitCounts::polled.
  std::atomic<uint64_t> polled{0};
};

/// The policy a Device with `requested` uses on `info`, with llvmpipe's
/// `threads`, in a process allowed `allowedCpus` CPUs; an error for a
/// `requested` that is none of WaitPolicy's enumerators.
Result<WaitSetting> chooseWait(WaitPolicy requested, const DeviceInfo &info,
                               const CpuThreadsSetting &threads,
                               unsigned allowedCpus);

/// How many CPUs this process may run on (its affinity mask where the
/// system has one), at least 1.
unsigned allowedCpus();

} // namespace capture::rt

#endif // CAPTURE_RT_WAIT_H
