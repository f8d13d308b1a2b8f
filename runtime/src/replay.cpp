//===- replay.cpp - Replaying an entry: pack, one submit, unpack ----------===//
//
// Training entries replay through the same path; training.cpp adds what
// differs (the inputs the runtime fills, the step counter). Eager and
// profiled runs share it too: only the submission differs (eager.cpp,
// profile.cpp).
//
//===----------------------------------------------------------------------===//

#include "capture/rt/deferred.h"
#include "capture/rt/suggest.h"
#include "module_impl.h"

#include <algorithm>
#include <cstring>

namespace capture::rt {
namespace {

/// Creates entry `e`'s probe staging, with room for every probe, on its
/// first probe request.
Status ensureProbeStaging(Module::Impl &m, EntryState &e) {
  if (e.probeStaging.handle() || !e.probeOffsets.empty())
    return Status::ok();
  const EntryDesc &entry = m.desc.entries[e.index];
  uint64_t total = 0;
  std::vector<uint64_t> offsets;
  for (const TensorSlotDesc &p : entry.probes) {
    offsets.push_back(total);
    total += p.size;
  }
  if (total) {
    Result<Buffer> b =
        Buffer::create(m.dev, total, Buffer::Usage::Readback,
                       "probe staging of entry '" + entry.name + "'");
    if (b.isError())
      return b.status();
    e.probeStaging = std::move(b).value();
    ++m.counters.probeStagingBuffers;
  }
  e.probeOffsets = std::move(offsets);
  return Status::ok();
}

/// Copies entry `e`'s given inputs into its input staging and returns the
/// copy regions of what must be sent: the whole buffer when what the Input
/// buffer holds is unknown, else the byte ranges of the inputs that differ
/// from what was last sent, and always the runtime-filled ones (training
/// hyperparameters, whose bias corrections change every step).
std::vector<VkBufferCopy>
packInputs(const Module::Impl &m, EntryState &e,
           const std::vector<const TensorView *> &given) {
  const EntryDesc &entry = m.desc.entries[e.index];
  uint8_t *staging = e.stagingIn.mapped();
  bool all = !e.inputsKnown || !e.canSkipInputs;
  std::vector<std::pair<uint64_t, uint64_t>> ranges; // [begin, end)
  for (size_t j = 0; j < entry.inputs.size(); ++j) {
    const TensorSlotDesc &slot = entry.inputs[j];
    if (!given[j] || !slot.size)
      continue;
    const auto *data = static_cast<const uint8_t *>(given[j]->data);
    if (!all &&
        std::memcmp(e.sentInputs.data() + slot.offset, data, slot.size) == 0)
      continue;
    std::memcpy(staging + slot.offset, data, slot.size);
    ranges.emplace_back(slot.offset, slot.offset + slot.size);
  }
  if (e.train) {
    writeTrainInputs(entry, *e.train, staging);
    for (size_t j = 0; j < entry.inputs.size(); ++j)
      if (isRuntimeFilled(entry, entry.inputs[j].name))
        ranges.emplace_back(entry.inputs[j].offset,
                            entry.inputs[j].offset + entry.inputs[j].size);
  }
  // The staging now holds what the Input buffer will hold; the shadow
  // copy is brought up to date where it differs (all of it, or the ranges
  // sent), so that an unchanged batch costs one compare and no copy.
  if (all) {
    std::memcpy(e.sentInputs.data(), staging, e.sentInputs.size());
    return {{0, 0, e.stagingIn.size()}};
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<VkBufferCopy> regions;
  for (const auto &[begin, end] : ranges) {
    if (!regions.empty() &&
        regions.back().srcOffset + regions.back().size >= begin) {
      VkBufferCopy &last = regions.back();
      last.size = std::max(last.srcOffset + last.size, end) - last.srcOffset;
      continue;
    }
    regions.push_back({begin, begin, end - begin});
  }
  for (const VkBufferCopy &r : regions)
    std::memcpy(e.sentInputs.data() + r.srcOffset, staging + r.srcOffset,
                r.size);
  return regions;
}

/// After the submission of a run of entry `state`: the training step's
/// and the index checks' verdicts, the outputs (copied into `into` where
/// given) and the probes.
Result<RunResult> finishRun(Module::Impl &m, EntryState &state,
                            const std::vector<const OutputView *> &into,
                            const std::vector<size_t> &probes,
                            const RunOptions &options, StageTimer &timer) {
  const EntryDesc &entry = m.desc.entries[state.index];
  Profile *profile = options.profile;
  m.lastReplayed = static_cast<int64_t>(state.index);
  state.inputsKnown = true;

  if (!entry.outputs.empty())
    CAPTURE_RT_RETURN_IF_ERROR(state.stagingOut.invalidate());
  // A refused step ran on the device: its profile is still filled, and the
  // caller's output memory is left as it was.
  Status step =
      runVerdict(entry, state.indexCheckOutputs, state.stagingOut.mapped(),
                 state.train ? &*state.train : nullptr);
  if (step.isError()) {
    timer.lap(&HostStages::unpackUs);
    if (profile)
      CAPTURE_RT_RETURN_IF_ERROR(
          finishProfile(m, state, options.eager, *profile));
    return step;
  }

  RunResult result;
  result.outputs = unpackOutputs(entry, state.indexCheckOutputs,
                                 state.stagingOut.mapped(), into);
  if (state.probeStaging.handle() && !probes.empty())
    CAPTURE_RT_RETURN_IF_ERROR(state.probeStaging.invalidate());
  for (size_t p : probes)
    result.probes.push_back(slotTensor(
        entry.probes[p], state.probeStaging.mapped() + state.probeOffsets[p]));
  timer.lap(&HostStages::unpackUs);
  if (profile)
    CAPTURE_RT_RETURN_IF_ERROR(
        finishProfile(m, state, options.eager, *profile));
  return result;
}

} // namespace

Result<std::vector<NamedTensor>>
Module::run(std::string_view entryName,
            const std::vector<NamedTensor> &inputs) {
  return run(entryName, inputs, RunOptions());
}

Result<std::vector<NamedTensor>>
Module::run(std::string_view entryName, const std::vector<NamedTensor> &inputs,
            const RunOptions &options) {
  Result<size_t> index = impl_->entryIndex(entryName);
  if (index.isError())
    return index.status();
  return runAt(index.value(), inputs, options);
}

Result<std::vector<NamedTensor>>
Module::runAt(size_t index, const std::vector<NamedTensor> &inputs,
              const RunOptions &options) {
  if (!options.probes.empty())
    return Status::error("entry '" + impl_->desc.entries[index].name +
                         "': " + std::to_string(options.probes.size()) +
                         " probes requested through run(), which cannot "
                         "return them; expected Module::runFull");
  Result<RunResult> r = runFullAt(index, inputs, options);
  if (r.isError())
    return r.status();
  return std::move(r.value().outputs);
}

Result<RunResult> Module::runFull(std::string_view entryName,
                                  const std::vector<NamedTensor> &inputs,
                                  const RunOptions &options) {
  Result<size_t> index = impl_->entryIndex(entryName);
  if (index.isError())
    return index.status();
  return runFullAt(index.value(), inputs, options);
}

Result<RunResult> Module::runFullAt(size_t index,
                                    const std::vector<NamedTensor> &inputs,
                                    const RunOptions &options) {
  std::vector<TensorView> views;
  views.reserve(inputs.size());
  for (const NamedTensor &t : inputs)
    views.push_back(TensorView::of(t));
  return runViewsAt(index, views, {}, options);
}

Result<RunResult> Module::runViews(std::string_view entryName,
                                   const std::vector<TensorView> &inputs,
                                   const std::vector<OutputView> &outputViews,
                                   const RunOptions &options) {
  Result<size_t> index = impl_->entryIndex(entryName);
  if (index.isError())
    return index.status();
  return runViewsAt(index.value(), inputs, outputViews, options);
}

Result<RunResult> Module::runViewsAt(size_t index,
                                     const std::vector<TensorView> &inputs,
                                     const std::vector<OutputView> &outputViews,
                                     const RunOptions &options) {
  Impl &m = *impl_;
  const EntryDesc &entry = m.desc.entries[index];
  EntryState &state = m.entries[index];
  bool deferred = options.deferred != nullptr;
  if (deferred && (options.eager || options.profile ||
                   !options.probes.empty() || !outputViews.empty()))
    return Status::error(
        "entry '" + entry.name +
        "': RunOptions::deferred cannot be combined with eager, profile, "
        "probes or output views (they need the run's submission now)");
  // This module's own waiting run holds the input staging and upload
  // command buffer this run reuses: it goes first, alone; so do all of them
  // before a profiled or eager run, whose times are its own. Else the
  // waiting runs go along with this run's submission, ahead of it
  // (deferred.h).
  if (!m.host && (m.dev.hasDeferred(&m) || options.profile || options.eager))
    (void)m.dev.submitDeferred(); // each deferred run's error is its own

  MatchedCall call;
  CAPTURE_RT_RETURN_IF_ERROR(matchCall(
      m.desc, entry, state.weightsRead, *m.unsetWeights,
      state.indexCheckOutputs, inputs, outputViews, options.probes, call));
  if (m.host) {
    if (!deferred)
      return runOnHost(m, state, call, options);
    // Nothing to save by waiting on the host: the run happens now, in the
    // order deferred, and its handle holds what take() gives (a refused
    // step's error included, as on Vulkan).
    RunOptions now = options;
    now.deferred = nullptr;
    *options.deferred =
        DeferredRun(m.device, m.dev.ranAtOnce(runOnHost(m, state, call, now)));
    return RunResult();
  }
  const std::vector<const TensorView *> &given = call.given;
  const std::vector<const OutputView *> &into = call.into;
  const std::vector<size_t> &probes = call.probes;
  if (!probes.empty())
    CAPTURE_RT_RETURN_IF_ERROR(ensureProbeStaging(m, state));

  Profile *profile = options.profile;
  if (profile) {
    *profile = Profile();
    profile->dispatchUs.assign(dispatchCount(entry), 0.0);
    // One-off work (the profiled recording) stays out of the stages.
    CAPTURE_RT_RETURN_IF_ERROR(prepareProfile(m, state, options.eager));
  }
  StageTimer timer(profile);
  m.counters.lastUploadBytes = m.counters.lastUploadRegions = 0;
  m.counters.lastSubmits = 0;

  // Only what changed since the last successful run is copied into the
  // staging and sent; until this run succeeds, the Input buffer's contents
  // are unknown (a failure sends everything next time).
  std::vector<VkBufferCopy> regions;
  if (!entry.inputs.empty()) {
    if (options.eager)
      state.inputsKnown = false; // an eager run copies the whole buffer
    regions = packInputs(m, state, given);
    state.inputsKnown = false;
    CAPTURE_RT_RETURN_IF_ERROR(state.stagingIn.flush());
  }
  timer.lap(&HostStages::packUs);

  // A failed replay leaves scratch undefined: probes must not read it.
  m.lastReplayed = -1;
  std::string what = "replay of entry '" + entry.name + "'";
  if (m.failNextReplay) {
    m.failNextReplay = false;
    return Status::error(what + ": failed by the test hook");
  }
  std::vector<VkCommandBuffer> cmds;
  auto sameRegions = [&]() {
    return m.uploadEntry == static_cast<int64_t>(index) &&
           std::equal(regions.begin(), regions.end(), m.uploadRecorded.begin(),
                      m.uploadRecorded.end(),
                      [](const VkBufferCopy &a, const VkBufferCopy &b) {
                        return a.srcOffset == b.srcOffset &&
                               a.dstOffset == b.dstOffset && a.size == b.size;
                      });
  };
  if (!regions.empty() && !options.eager) {
    if (!sameRegions()) {
      m.uploadEntry = -1;
      CAPTURE_RT_RETURN_IF_ERROR(recordUpload(m, state, m.uploadCmd, regions));
      m.uploadEntry = static_cast<int64_t>(index);
      m.uploadRecorded = regions;
      ++m.counters.uploadRecordings;
    }
    for (const VkBufferCopy &r : regions)
      m.counters.lastUploadBytes += r.size;
    m.counters.lastUploadRegions = regions.size();
  }
  if (!probes.empty())
    CAPTURE_RT_RETURN_IF_ERROR(recordProbeCopies(m, state, m.probeCmd, probes));
  if (deferred) {
    if (!regions.empty())
      cmds.push_back(m.uploadCmd);
    cmds.push_back(state.cmd);
    DeferredItem item;
    item.owner = &m;
    item.cmds = std::move(cmds);
    item.what = "entry '" + entry.name + "'";
    // The module outlives the item: ~Impl submits its waiting run first.
    item.finish = [&m, &state](const Status &submitted) -> Result<RunResult> {
      if (submitted.isError()) {
        m.uploadEntry = -1;
        return submitted;
      }
      StageTimer timer(nullptr);
      std::vector<const OutputView *> into(
          m.desc.entries[state.index].outputs.size(), nullptr);
      return finishRun(m, state, into, {}, RunOptions(), timer);
    };
    *options.deferred = DeferredRun(m.device, m.dev.deferRun(std::move(item)));
    return RunResult();
  }
  if (options.eager) {
    CAPTURE_RT_RETURN_IF_ERROR(runEager(m, state, profile, timer));
    m.counters.lastSubmits = std::max<size_t>(dispatchCount(entry), 1);
    m.counters.lastUploadBytes = state.stagingIn.size();
    m.counters.lastUploadRegions = entry.inputs.empty() ? 0 : 1;
    if (!probes.empty()) {
      CAPTURE_RT_RETURN_IF_ERROR(
          m.dev.submitAndWait(m.probeCmd, m.fence, what));
      ++m.counters.lastSubmits;
    }
  } else {
    if (!regions.empty())
      cmds.push_back(m.uploadCmd);
    // The profiled variant exists only once prepareProfile recorded it
    // (never on a device without timestamps).
    cmds.push_back(profile && state.profiledCmd ? state.profiledCmd
                                                : state.cmd);
    if (!probes.empty())
      cmds.push_back(m.probeCmd);
    // After a failed submission or wait the upload's command buffer may
    // still be pending: the next replay records it again.
    Status submitted = m.dev.submit(cmds, m.fence, what);
    if (submitted.isError()) {
      m.uploadEntry = -1;
      return submitted;
    }
    m.counters.lastSubmits = 1;
    timer.lap(&HostStages::submitUs);
    Status waited = m.dev.wait(m.fence, what, &state.waitHistory);
    if (waited.isError()) {
      m.uploadEntry = -1;
      return waited;
    }
    timer.lap(&HostStages::waitUs);
  }
  return finishRun(m, state, into, probes, options, timer);
}

} // namespace capture::rt
