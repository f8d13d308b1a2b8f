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

std::string describeSlots(const std::vector<const TensorSlotDesc *> &slots) {
  std::string s;
  for (const TensorSlotDesc *slot : slots)
    s += (s.empty() ? "'" : ", '") + slot->name + "' " +
         formatType(slot->shape, slot->dtype);
  return s.empty() ? "none" : s;
}

/// The first index check of the replay just done that found an index out
/// of range, as an error naming the op, its input, the position and value.
Status checkIndexStatuses(const EntryDesc &entry, const EntryState &state) {
  for (size_t k = 0; k < entry.indexChecks.size(); ++k) {
    const IndexCheckDesc &c = entry.indexChecks[k];
    const TensorSlotDesc &slot = entry.outputs[state.indexCheckOutputs[k]];
    int32_t status[2];
    std::memcpy(status, state.stagingOut.mapped() + slot.offset,
                sizeof(status));
    if (status[0] < 0)
      continue;
    std::string what = c.op + (c.location.empty() ? "" : " at " + c.location);
    std::string source = c.input.empty() ? std::string("its (computed) indices")
                                         : "input '" + c.input + "'";
    std::string outcome =
        state.train
            ? "the step was refused: weights, moments and the step "
              "counter (t = " +
                  std::to_string(state.train->state.step) + ") are unchanged"
            : std::string("no outputs are returned");
    // A training step refused for a bad index is a refusal like a
    // non-finite norm (the update was not applied).
    return Status::error(
        "entry '" + entry.name + "': " + what + ": " + source + " has " +
            std::to_string(status[1]) + " at position " +
            std::to_string(status[0]) + ", expected an index in [0, " +
            std::to_string(c.bound) + "); " + outcome,
        state.train ? StatusCode::UpdateRefused : StatusCode::Error);
  }
  return Status::ok();
}

/// Refuses to run `entry` while a weight it reads holds no value: zeros
/// there would train or predict silently from nothing.
Status checkWeightsSet(const Module::Impl &m, const EntryDesc &entry,
                       const EntryState &state) {
  if (m.unsetWeights->empty())
    return Status::ok();
  std::vector<const WeightDesc *> unset;
  for (size_t w : state.weightsRead)
    if (m.unsetWeights->count(m.desc.weights[w].name))
      unset.push_back(&m.desc.weights[w]);
  if (unset.empty())
    return Status::ok();
  bool many = unset.size() > 1;
  std::string names;
  for (const WeightDesc *w : unset)
    names += (names.empty() ? "'" : ", '") + w->name + "' " +
             formatType(w->shape, w->dtype);
  const WeightDesc &first = *unset.front();
  return Status::error(
      "entry '" + entry.name + "' reads weight" + (many ? "s " : " ") + names +
      " that the module gives no initial value and that " +
      (many ? "were" : "was") + " never set: set " + (many ? "them" : "it") +
      " with Module::setParam or setParams (capture-run: --param " +
      first.name + "=FILE.npy), or give " + (many ? "each" : "it") +
      " an initializer in the model (ag.weight @" + first.name +
      " ... = #ag.init<...>)");
}

/// Matches `inputs` to the entry's input slots: each exactly once, with the
/// declared shape and dtype, except the inputs the runtime fills (training
/// entries), which must not be given. Fills `given` (parallel to
/// entry.inputs; null for runtime-filled inputs).
Status matchInputs(const EntryDesc &entry,
                   const std::vector<TensorView> &inputs,
                   std::vector<const TensorView *> &given) {
  std::string where = "entry '" + entry.name + "': ";
  std::vector<bool> runtimeFilled(entry.inputs.size(), false);
  std::vector<const TensorSlotDesc *> expected;
  for (size_t j = 0; j < entry.inputs.size(); ++j) {
    runtimeFilled[j] = isRuntimeFilled(entry, entry.inputs[j].name);
    if (!runtimeFilled[j])
      expected.push_back(&entry.inputs[j]);
  }
  given.assign(entry.inputs.size(), nullptr);
  for (const TensorView &in : inputs) {
    size_t j = 0;
    while (j < entry.inputs.size() && entry.inputs[j].name != in.name)
      ++j;
    std::string name(in.name);
    if (j == entry.inputs.size())
      return Status::error(where + "unknown input '" + name + "'" +
                           suggestNameIn(name, expected) +
                           "; expected inputs: " + describeSlots(expected));
    CAPTURE_RT_RETURN_IF_ERROR(checkNotRuntimeFilled(entry, name));
    const TensorSlotDesc &slot = entry.inputs[j];
    if (given[j])
      return Status::error(where + "input '" + name + "' given twice");
    if (in.rank != slot.shape.size() ||
        !std::equal(slot.shape.begin(), slot.shape.end(), in.shape) ||
        in.dtype != slot.dtype)
      return Status::error(where + "input '" + slot.name + "' has shape " +
                           formatType(slot.shape, slot.dtype) + ", got " +
                           formatType(in.shapeVector(), in.dtype));
    if (in.bytes != slot.size || (slot.size && !in.data))
      return Status::error(where + "input '" + slot.name + "' of shape " +
                           formatType(slot.shape, slot.dtype) + " needs " +
                           std::to_string(slot.size) + " bytes of data, got " +
                           std::to_string(in.data ? in.bytes : 0));
    given[j] = &in;
  }
  std::vector<const TensorSlotDesc *> missing;
  for (size_t j = 0; j < entry.inputs.size(); ++j)
    if (!given[j] && !runtimeFilled[j])
      missing.push_back(&entry.inputs[j]);
  if (!missing.empty())
    return Status::error(
        where + "missing input" + (missing.size() > 1 ? "s " : " ") +
        describeSlots(missing) + " (got " + std::to_string(inputs.size()) +
        " of " + std::to_string(expected.size()) + " inputs)");
  return Status::ok();
}

/// Matches the caller's output views to the entry's outputs (the ones it
/// returns: not the index checks'); fills `into` (parallel to
/// entry.outputs; null where the output is returned instead).
Status matchOutputs(const EntryDesc &entry, const EntryState &state,
                    const std::vector<OutputView> &outputs,
                    std::vector<const OutputView *> &into) {
  std::string where = "entry '" + entry.name + "': ";
  into.assign(entry.outputs.size(), nullptr);
  auto internal = [&](size_t o) {
    return std::find(state.indexCheckOutputs.begin(),
                     state.indexCheckOutputs.end(),
                     o) != state.indexCheckOutputs.end();
  };
  for (const OutputView &out : outputs) {
    size_t o = 0;
    while (o < entry.outputs.size() &&
           (entry.outputs[o].name != out.name || internal(o)))
      ++o;
    std::string name(out.name);
    if (o == entry.outputs.size()) {
      std::vector<const TensorSlotDesc *> known;
      for (size_t k = 0; k < entry.outputs.size(); ++k)
        if (!internal(k))
          known.push_back(&entry.outputs[k]);
      return Status::error(where + "unknown output '" + name +
                           "'; expected outputs: " + describeSlots(known));
    }
    const TensorSlotDesc &slot = entry.outputs[o];
    if (into[o])
      return Status::error(where + "output '" + name + "' given twice");
    if (out.bytes != slot.size || (slot.size && !out.data))
      return Status::error(where + "output '" + name + "' " +
                           formatType(slot.shape, slot.dtype) + " needs " +
                           std::to_string(slot.size) +
                           " bytes of memory, got " +
                           std::to_string(out.data ? out.bytes : 0));
    into[o] = &out;
  }
  return Status::ok();
}

/// Indices into entry.probes of the requested probes, or an error that
/// says how to add one (an entry without probes) or lists them.
Status matchProbes(const EntryDesc &entry,
                   const std::vector<std::string> &requested,
                   std::vector<size_t> &indices) {
  indices.clear();
  if (requested.empty())
    return Status::ok();
  if (entry.probes.empty())
    return Status::error("entry '" + entry.name +
                         "' has no probes, so probe '" + requested.front() +
                         "' cannot be read; add one in the traced entry with "
                         "`ag.probe \"name\" %value` and recompile");
  for (const std::string &name : requested) {
    size_t j = 0;
    while (j < entry.probes.size() && entry.probes[j].name != name)
      ++j;
    if (j == entry.probes.size()) {
      std::vector<const TensorSlotDesc *> all;
      for (const TensorSlotDesc &p : entry.probes)
        all.push_back(&p);
      return Status::error("entry '" + entry.name + "' has no probe '" + name +
                           "'" + suggestNameIn(name, all) +
                           "; its probes: " + describeSlots(all));
    }
    indices.push_back(j);
  }
  return Status::ok();
}

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
    writeTrainInputs(m, e);
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
  Status step = state.train ? finishTrainStep(m, state) : Status::ok();
  // A bad index is the cause of the NaN norm that refused the step: say so.
  Status indices = checkIndexStatuses(entry, state);
  if (indices.isError())
    step = indices;
  if (step.isError()) {
    timer.lap(&HostStages::unpackUs);
    if (profile)
      CAPTURE_RT_RETURN_IF_ERROR(
          finishProfile(m, state, options.eager, *profile));
    return step;
  }

  RunResult result;
  std::vector<NamedTensor> &outputs = result.outputs;
  outputs.reserve(entry.outputs.size());
  for (size_t o = 0; o < entry.outputs.size(); ++o) {
    const TensorSlotDesc &slot = entry.outputs[o];
    if (std::find(state.indexCheckOutputs.begin(),
                  state.indexCheckOutputs.end(),
                  o) != state.indexCheckOutputs.end())
      continue;
    const uint8_t *src = state.stagingOut.mapped() + slot.offset;
    if (into[o]) {
      if (slot.size)
        std::memcpy(into[o]->data, src, slot.size);
      continue;
    }
    NamedTensor out;
    out.name = slot.name;
    out.tensor.dtype = slot.dtype;
    out.tensor.shape = slot.shape;
    out.tensor.data.assign(src, src + slot.size);
    outputs.push_back(std::move(out));
  }
  if (state.probeStaging.handle() && !probes.empty())
    CAPTURE_RT_RETURN_IF_ERROR(state.probeStaging.invalidate());
  for (size_t p : probes) {
    const TensorSlotDesc &slot = entry.probes[p];
    NamedTensor out;
    out.name = slot.name;
    out.tensor.dtype = slot.dtype;
    out.tensor.shape = slot.shape;
    if (slot.size) {
      const uint8_t *src = state.probeStaging.mapped() + state.probeOffsets[p];
      out.tensor.data.assign(src, src + slot.size);
    }
    result.probes.push_back(std::move(out));
  }
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
  if (!options.probes.empty())
    return Status::error("entry '" + std::string(entryName) +
                         "': " + std::to_string(options.probes.size()) +
                         " probes requested through run(), which cannot "
                         "return them; expected Module::runFull");
  Result<RunResult> r = runFull(entryName, inputs, options);
  if (r.isError())
    return r.status();
  return std::move(r.value().outputs);
}

Result<RunResult> Module::runFull(std::string_view entryName,
                                  const std::vector<NamedTensor> &inputs,
                                  const RunOptions &options) {
  std::vector<TensorView> views;
  views.reserve(inputs.size());
  for (const NamedTensor &t : inputs)
    views.push_back(TensorView::of(t));
  return runViews(entryName, views, {}, options);
}

Result<RunResult> Module::runViews(std::string_view entryName,
                                   const std::vector<TensorView> &inputs,
                                   const std::vector<OutputView> &outputViews,
                                   const RunOptions &options) {
  Impl &m = *impl_;
  Result<size_t> index = m.entryIndex(entryName);
  if (index.isError())
    return index.status();
  const EntryDesc &entry = m.desc.entries[index.value()];
  EntryState &state = m.entries[index.value()];
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
  if (m.dev.hasDeferred(&m) || options.profile || options.eager)
    (void)m.dev.submitDeferred(); // each deferred run's error is its own

  CAPTURE_RT_RETURN_IF_ERROR(checkWeightsSet(m, entry, state));
  std::vector<const TensorView *> given;
  CAPTURE_RT_RETURN_IF_ERROR(matchInputs(entry, inputs, given));
  std::vector<const OutputView *> into;
  CAPTURE_RT_RETURN_IF_ERROR(matchOutputs(entry, state, outputViews, into));
  std::vector<size_t> probes;
  CAPTURE_RT_RETURN_IF_ERROR(matchProbes(entry, options.probes, probes));
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
    return m.uploadEntry == static_cast<int64_t>(index.value()) &&
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
      m.uploadEntry = static_cast<int64_t>(index.value());
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
