//===- eager.cpp - Running an entry one submission per dispatch -----------===//
//
// Eager mode is the baseline a replay is measured against: the same
// pipelines and descriptor sets, but each dispatch recorded, submitted and
// waited for on its own, as an eager framework launches kernels. The
// entry's Barrier commands need no counterpart: every command buffer starts
// with the barrier that orders it after all earlier submissions (the fence
// wait only orders execution; this barrier makes the earlier device writes
// visible), which covers every dependency a Barrier would.
//
//===----------------------------------------------------------------------===//

#include "module_impl.h"

namespace capture::rt {

Status runEager(Module::Impl &m, EntryState &state, Profile *profile,
                StageTimer &timer) {
  const EntryDesc &entry = m.desc.entries[state.index];
  std::vector<size_t> dispatches;
  for (size_t i = 0; i < entry.commands.size(); ++i)
    if (entry.commands[i].kind == CommandDesc::Kind::Dispatch)
      dispatches.push_back(i);
  // The input copy goes with the first submission and the output copy with
  // the last; an entry without dispatches still needs one for its copies.
  size_t submissions = std::max<size_t>(dispatches.size(), 1);
  VkQueryPool queries = profile ? state.queries : VK_NULL_HANDLE;
  const TimestampSupport *ts = m.timestamps ? &*m.timestamps : nullptr;
  VkCommandBuffer cmd = m.utilityCmd;
  for (size_t k = 0; k < submissions; ++k) {
    bool hasDispatch = k < dispatches.size();
    std::string what =
        "eager run of entry '" + entry.name + "'" +
        (hasDispatch
             ? ", dispatch " + std::to_string(k) + " (kernel '" +
                   m.desc.kernels[entry.commands[dispatches[k]].dispatch.kernel]
                       .name +
                   "')"
             : std::string());
    CAPTURE_RT_RETURN_IF_ERROR(beginOneTimeCommands(cmd, what));
    if (queries) {
      vkCmdResetQueryPool(cmd, queries, kSubmissionStartQuery, 2);
      if (hasDispatch)
        vkCmdResetQueryPool(cmd, queries, dispatchStartQuery(k), 2);
      recordTimestamp(cmd, queries, kSubmissionStartQuery);
    }
    recordSubmissionStart(cmd);
    if (k == 0)
      recordCopyIn(m, state, cmd);
    if (hasDispatch) {
      if (queries)
        recordTimestamp(cmd, queries, dispatchStartQuery(k));
      recordDispatch(m, state, cmd, dispatches[k]);
      if (queries)
        recordTimestamp(cmd, queries, dispatchEndQuery(k));
    }
    if (k + 1 == submissions)
      recordCopyOut(m, state, cmd);
    if (queries)
      recordTimestamp(cmd, queries, kSubmissionEndQuery);
    CAPTURE_RT_RETURN_IF_ERROR(
        vkCheck(vkEndCommandBuffer(cmd), "vkEndCommandBuffer", what));
    timer.lap(&HostStages::recordUs);
    CAPTURE_RT_RETURN_IF_ERROR(m.dev.submit(cmd, m.fence, what));
    timer.lap(&HostStages::submitUs);
    CAPTURE_RT_RETURN_IF_ERROR(m.dev.wait(m.fence, what));
    timer.lap(&HostStages::waitUs);
    if (!queries)
      continue;
    // The next submission reuses queries 0 and 1: read them now.
    std::vector<uint64_t> ticks;
    CAPTURE_RT_RETURN_IF_ERROR(readTimestamps(
        m.dev.device, queries, kSubmissionStartQuery, 2, ticks, what));
    profile->submissionUs +=
        timestampDeltaUs(ticks[0], ticks[1], ts->validBits, ts->periodNs);
    if (hasDispatch) {
      CAPTURE_RT_RETURN_IF_ERROR(readTimestamps(
          m.dev.device, queries, dispatchStartQuery(k), 2, ticks, what));
      profile->dispatchUs[k] =
          timestampDeltaUs(ticks[0], ticks[1], ts->validBits, ts->periodNs);
    }
    // Reading the queries is profiling overhead, not a stage of the run.
    timer.skip();
  }
  return Status::ok();
}

} // namespace capture::rt
