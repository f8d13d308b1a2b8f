//===- profile.h - Timestamps and timers of profiled runs -------*- C++ -*-===//
//
// A profiled run (RunOptions::profile) times its host stages with
// StageTimer and, when the compute queue has timestamps, the device with a
// query pool per entry: queries 0 and 1 bracket the whole submission, 2 + 2d
// and 3 + 2d dispatch d. Both timestamps of a dispatch are written at
// BOTTOM_OF_PIPE, i.e. once every earlier command has completed, so that
// dispatches overlapping on a GPU are not counted twice.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_PROFILE_H
#define CAPTURE_RT_PROFILE_H

#include "capture/rt/module.h"

#include "vk_util.h"

#include <chrono>

namespace capture::rt {

/// The timestamp support of a device's compute queue.
struct TimestampSupport {
  /// Ok when dispatches can be timed; else why not.
  Status status;
  /// VkQueueFamilyProperties::timestampValidBits of the queue's family.
  uint32_t validBits = 0;
  /// VkPhysicalDeviceLimits::timestampPeriod: nanoseconds per tick.
  float periodNs = 0;
};

/// Ok when queue family `queueFamily` of device `device`, whose timestamps
/// have `validBits` valid bits and tick every `periodNs` ns, can time
/// dispatches; else an error naming the device, the value found and the
/// value expected.
Status checkTimestampSupport(uint32_t validBits, float periodNs,
                             const std::string &device, uint32_t queueFamily);

/// The query written before the first command of a profiled submission.
constexpr uint32_t kSubmissionStartQuery = 0;
/// The query written after its last command.
constexpr uint32_t kSubmissionEndQuery = 1;
/// The query written before dispatch `d` (counting dispatches only).
constexpr uint32_t dispatchStartQuery(size_t d) {
  return static_cast<uint32_t>(2 + 2 * d);
}
/// The query written after dispatch `d`.
constexpr uint32_t dispatchEndQuery(size_t d) {
  return static_cast<uint32_t>(3 + 2 * d);
}
/// Queries in the pool of an entry with `dispatches` dispatches.
constexpr uint32_t queryCount(size_t dispatches) {
  return dispatchStartQuery(dispatches);
}

/// Number of Dispatch commands of `entry`.
size_t dispatchCount(const EntryDesc &entry);

/// Microseconds from timestamp `start` to `end`, both of `validBits` valid
/// bits (the difference is taken modulo 2^validBits, so one wrap-around
/// between them is harmless), at `periodNs` ns per tick.
double timestampDeltaUs(uint64_t start, uint64_t end, uint32_t validBits,
                        double periodNs);

/// Reads queries [first, first + count) of `pool`, whose submission has
/// completed, as 64-bit values.
Status readTimestamps(VkDevice device, VkQueryPool pool, uint32_t first,
                      uint32_t count, std::vector<uint64_t> &ticks,
                      const std::string &what);

/// Records a timestamp into query `query` of `pool`, written once every
/// earlier command has completed.
void recordTimestamp(VkCommandBuffer cmd, VkQueryPool pool, uint32_t query);

/// Fills `profile.kernels` from `entry`'s dispatches: their count per
/// kernel and, with device times, the sum of their `dispatchUs`.
void tallyKernels(const ModuleDesc &desc, const EntryDesc &entry,
                  Profile &profile);

/// Adds the host time since the previous lap to one stage of a profile.
/// Without a profile it never reads the clock, so unprofiled runs pay
/// nothing.
class StageTimer {
public:
  /// Starts timing for `profile` (may be null).
  explicit StageTimer(Profile *profile);
  /// Adds the time since the previous lap (or construction) to `stage` of
  /// the profile's host stages.
  void lap(double HostStages::*stage);
  /// Starts the next lap now, leaving out the time since the previous one
  /// (profiling's own overhead).
  void skip();

private:
  /// The profile being filled, or null.
  Profile *profile;
  /// End of the previous lap.
  std::chrono::steady_clock::time_point last;
};

} // namespace capture::rt

#endif // CAPTURE_RT_PROFILE_H
