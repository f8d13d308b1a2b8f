//===- host_replay.cpp - A run of an entry on the host device -------------===//
//
// The host driver's half of Module::runViews: memory is shared with the
// host, so the given inputs go straight into the entry's Input buffer (no
// staging, nothing to skip) and the outputs come straight from its Output
// buffer; the matching, the training inputs and the verdicts are the
// core's, as for a Vulkan replay. A profiled run times each launch on the
// host's clock (the profile's device times).
//
//===----------------------------------------------------------------------===//

#include "module_impl.h"
#include "profile.h"

#include <cstring>

namespace capture::rt {

/// A profile of a host run: every launch timed on the host's clock, as the
/// device times are on Vulkan (no submission: the kernels are calls).
static void finishHostProfile(const Module::Impl &m, const EntryDesc &entry,
                              Profile &profile) {
  profile.entry = entry.name;
  profile.eager = false;
  profile.submissions = 0;
  profile.hasDeviceTimes = true;
  profile.hostClock = true;
  profile.submissionUs = 0;
  for (double us : profile.dispatchUs)
    profile.submissionUs += us;
  tallyKernels(m.desc, entry, profile);
}

Result<RunResult> runOnHost(Module::Impl &m, EntryState &state,
                            const MatchedCall &call,
                            const RunOptions &options) {
  const EntryDesc &entry = m.desc.entries[state.index];
  if (options.eager)
    return Status::error(
        "entry '" + entry.name +
        "': an eager run (one submission per dispatch, the baseline of a "
        "Vulkan replay) has no meaning on the host device, which makes no "
        "submissions; expected a plain, profiled or deferred run, or a "
        "Vulkan device (selector 'vulkan')");
  Profile *profile = options.profile;
  if (profile)
    *profile = Profile();
  StageTimer timer(profile);
  m.counters.lastUploadBytes = m.counters.lastUploadRegions = 0;
  m.counters.lastSubmits = 0;
  // A failed run leaves scratch undefined: probes must not read it.
  m.lastReplayed = -1;
  if (!entry.inputs.empty()) {
    uint8_t *in = m.host->buffer(entry.inputBuffer);
    for (size_t j = 0; j < entry.inputs.size(); ++j)
      if (call.given[j] && entry.inputs[j].size)
        std::memcpy(in + entry.inputs[j].offset, call.given[j]->data,
                    entry.inputs[j].size);
    if (state.train)
      writeTrainInputs(entry, *state.train, in);
  }
  if (m.failNextReplay) {
    m.failNextReplay = false;
    return Status::error("replay of entry '" + entry.name +
                         "': failed by the test hook");
  }
  timer.lap(&HostStages::packUs);
  m.host->run(state.index, profile ? &profile->dispatchUs : nullptr);
  timer.skip(); // the launches are the profile's device times
  m.lastReplayed = static_cast<int64_t>(state.index);

  const uint8_t *out =
      entry.outputs.empty() ? nullptr : m.host->buffer(entry.outputBuffer);
  // The update kernel made the refusal's test itself and wrote nothing.
  Status verdict = runVerdict(entry, state.indexCheckOutputs, out,
                              state.train ? &*state.train : nullptr);
  if (verdict.isError()) {
    timer.lap(&HostStages::unpackUs);
    if (profile)
      finishHostProfile(m, entry, *profile);
    return verdict;
  }
  RunResult result;
  result.outputs =
      unpackOutputs(entry, state.indexCheckOutputs, out, call.into);
  for (size_t p : call.probes) {
    const TensorSlotDesc &slot = entry.probes[p];
    result.probes.push_back(
        slotTensor(slot, m.host->buffer(slot.buffer) + slot.offset));
  }
  timer.lap(&HostStages::unpackUs);
  if (profile)
    finishHostProfile(m, entry, *profile);
  return result;
}

} // namespace capture::rt
