//===- profile.cpp - Profiled runs: timestamp queries, host stages --------===//
//
// Nothing here runs until a run asks for a profile: the query pool and the
// profiled command buffer of an entry are created on its first profiled run
// and kept for the next ones, so unprofiled replays are exactly what they
// were, and repeated profiled replays record nothing more.
//
//===----------------------------------------------------------------------===//

#include "module_impl.h"

#include "check_util.h"

#include <algorithm>

namespace capture::rt {
namespace {

/// The timestamp properties of the device's compute queue.
TimestampSupport queryTimestampSupport(const Device::Impl &dev) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(dev.physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(dev.physical, &count,
                                           families.data());
  TimestampSupport t;
  t.validBits = dev.queueFamily < count
                    ? families[dev.queueFamily].timestampValidBits
                    : 0;
  t.periodNs = dev.properties.limits.timestampPeriod;
  t.status = checkTimestampSupport(t.validBits, t.periodNs, dev.info.name,
                                   dev.queueFamily);
  return t;
}

} // namespace

Status checkTimestampSupport(uint32_t validBits, float periodNs,
                             const std::string &device, uint32_t queueFamily) {
  std::string where = "device '" + device +
                      "' has no timestamps for profiling: its compute queue "
                      "(family " +
                      std::to_string(queueFamily) + ") has ";
  if (validBits == 0)
    return Status::error(where +
                         "timestampValidBits = 0, expected 1 to 64; device "
                         "times are not measured, host stages are");
  if (validBits > 64)
    return Status::error(where + "timestampValidBits = " +
                         std::to_string(validBits) + ", expected 1 to 64");
  if (!(periodNs > 0))
    return Status::error(where + "timestampPeriod = " + formatFloat(periodNs) +
                         " ns, expected > 0; device times are not measured, "
                         "host stages are");
  return Status::ok();
}

size_t dispatchCount(const EntryDesc &entry) {
  size_t n = 0;
  for (const CommandDesc &c : entry.commands)
    n += c.kind == CommandDesc::Kind::Dispatch;
  return n;
}

double timestampDeltaUs(uint64_t start, uint64_t end, uint32_t validBits,
                        double periodNs) {
  uint64_t mask =
      validBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << validBits) - 1;
  uint64_t ticks = (end - start) & mask;
  return static_cast<double>(ticks) * periodNs / 1000.0;
}

Status readTimestamps(VkDevice device, VkQueryPool pool, uint32_t first,
                      uint32_t count, std::vector<uint64_t> &ticks,
                      const std::string &what) {
  ticks.assign(count, 0);
  // No WAIT_BIT: the submission was waited for, so every query it wrote is
  // available, and one it did not write must become an error
  // (VK_NOT_READY), not a wait that never ends.
  return vkCheck(vkGetQueryPoolResults(
                     device, pool, first, count, count * sizeof(uint64_t),
                     ticks.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT),
                 "vkGetQueryPoolResults", "timestamps of " + what);
}

void recordTimestamp(VkCommandBuffer cmd, VkQueryPool pool, uint32_t query) {
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, query);
}

StageTimer::StageTimer(Profile *profile) : profile(profile) {
  if (profile)
    last = std::chrono::steady_clock::now();
}

void StageTimer::lap(double HostStages::*stage) {
  if (!profile)
    return;
  auto now = std::chrono::steady_clock::now();
  profile->host.*stage +=
      std::chrono::duration<double, std::micro>(now - last).count();
  last = now;
}

void StageTimer::skip() {
  if (profile)
    last = std::chrono::steady_clock::now();
}

Status prepareProfile(Module::Impl &m, EntryState &e, bool eager) {
  if (!m.timestamps)
    m.timestamps = queryTimestampSupport(m.dev);
  if (m.timestamps->status.isError())
    return Status::ok();
  const EntryDesc &entry = m.desc.entries[e.index];
  std::string what = "profiling of entry '" + entry.name + "'";
  if (!e.queries) {
    VkQueryPoolCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = queryCount(dispatchCount(entry));
    CAPTURE_RT_RETURN_IF_ERROR(
        vkCheck(vkCreateQueryPool(m.dev.device, &info, nullptr, &e.queries),
                "vkCreateQueryPool", what));
  }
  if (eager || e.profiledCmd)
    return Status::ok();
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = m.commandPool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkAllocateCommandBuffers(m.dev.device, &alloc, &cmd),
              "vkAllocateCommandBuffers", what));
  // Freed with the pool. Kept only once recorded, so that a failed
  // recording is retried by the next profiled replay.
  Status recorded = recordEntry(m, e, cmd, e.queries);
  if (recorded.isError()) {
    vkFreeCommandBuffers(m.dev.device, m.commandPool, 1, &cmd);
    return recorded;
  }
  e.profiledCmd = cmd;
  return Status::ok();
}

Status finishProfile(const Module::Impl &m, const EntryState &e, bool eager,
                     Profile &profile) {
  const EntryDesc &entry = m.desc.entries[e.index];
  size_t dispatches = dispatchCount(entry);
  profile.entry = entry.name;
  profile.eager = eager;
  profile.submissions = eager ? std::max<size_t>(dispatches, 1) : 1;
  const TimestampSupport &ts = *m.timestamps;
  profile.timestampValidBits = ts.validBits;
  profile.timestampPeriodNs = ts.periodNs;
  profile.hasDeviceTimes = ts.status.isOk();
  if (!profile.hasDeviceTimes) {
    profile.noDeviceTimes = ts.status.message();
    profile.dispatchUs.clear();
  } else if (!eager) {
    // An eager run read its timestamps after each of its submissions.
    std::vector<uint64_t> ticks;
    CAPTURE_RT_RETURN_IF_ERROR(
        readTimestamps(m.dev.device, e.queries, 0, queryCount(dispatches),
                       ticks, "the replay of entry '" + entry.name + "'"));
    profile.submissionUs =
        timestampDeltaUs(ticks[kSubmissionStartQuery],
                         ticks[kSubmissionEndQuery], ts.validBits, ts.periodNs);
    for (size_t d = 0; d < dispatches; ++d)
      profile.dispatchUs[d] = timestampDeltaUs(ticks[dispatchStartQuery(d)],
                                               ticks[dispatchEndQuery(d)],
                                               ts.validBits, ts.periodNs);
  }
  tallyKernels(m.desc, entry, profile);
  return Status::ok();
}

void tallyKernels(const ModuleDesc &desc, const EntryDesc &entry,
                  Profile &profile) {
  profile.kernels.clear();
  size_t d = 0;
  for (const CommandDesc &c : entry.commands) {
    if (c.kind != CommandDesc::Kind::Dispatch)
      continue;
    uint32_t kernel = c.dispatch.kernel;
    auto it = std::find_if(
        profile.kernels.begin(), profile.kernels.end(),
        [&](const KernelProfile &k) { return k.kernel == kernel; });
    if (it == profile.kernels.end()) {
      KernelProfile k;
      k.kernel = kernel;
      k.name = desc.kernels[kernel].name;
      profile.kernels.push_back(k);
      it = profile.kernels.end() - 1;
    }
    ++it->dispatches;
    if (profile.hasDeviceTimes)
      it->deviceUs += profile.dispatchUs[d];
    ++d;
  }
}

} // namespace capture::rt
