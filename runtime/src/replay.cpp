//===- replay.cpp - Replaying an entry: pack, one submit, unpack ----------===//
//
// Training entries replay through the same path; training.cpp adds what
// differs (the inputs the runtime fills, the step counter). Eager and
// profiled runs share it too: only the submission differs (eager.cpp,
// profile.cpp).
//
//===----------------------------------------------------------------------===//

#include "module_impl.h"

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

/// Matches `inputs` to the entry's input slots: each exactly once, with the
/// declared shape and dtype, except the inputs the runtime fills (training
/// entries), which must not be given. Fills `given` (parallel to
/// entry.inputs; null for runtime-filled inputs).
Status matchInputs(const EntryDesc &entry,
                   const std::vector<NamedTensor> &inputs,
                   std::vector<const HostTensor *> &given) {
  std::string where = "entry '" + entry.name + "': ";
  std::vector<bool> runtimeFilled(entry.inputs.size(), false);
  std::vector<const TensorSlotDesc *> expected;
  for (size_t j = 0; j < entry.inputs.size(); ++j) {
    runtimeFilled[j] = isRuntimeFilled(entry, entry.inputs[j].name);
    if (!runtimeFilled[j])
      expected.push_back(&entry.inputs[j]);
  }
  given.assign(entry.inputs.size(), nullptr);
  for (const NamedTensor &in : inputs) {
    size_t j = 0;
    while (j < entry.inputs.size() && entry.inputs[j].name != in.name)
      ++j;
    if (j == entry.inputs.size())
      return Status::error(where + "unknown input '" + in.name +
                           "'; expected inputs: " + describeSlots(expected));
    CAPTURE_RT_RETURN_IF_ERROR(checkNotRuntimeFilled(entry, in.name));
    const TensorSlotDesc &slot = entry.inputs[j];
    if (given[j])
      return Status::error(where + "input '" + in.name + "' given twice");
    const HostTensor &t = in.tensor;
    if (t.shape != slot.shape || t.dtype != slot.dtype)
      return Status::error(where + "input '" + slot.name + "' has shape " +
                           formatType(slot.shape, slot.dtype) + ", got " +
                           formatType(t.shape, t.dtype));
    if (t.data.size() != slot.size)
      return Status::error(where + "input '" + slot.name + "' of shape " +
                           formatType(slot.shape, slot.dtype) + " needs " +
                           std::to_string(slot.size) + " bytes of data, got " +
                           std::to_string(t.data.size()));
    given[j] = &t;
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

} // namespace

Result<std::vector<NamedTensor>>
Module::run(std::string_view entryName,
            const std::vector<NamedTensor> &inputs) {
  return run(entryName, inputs, RunOptions());
}

Result<std::vector<NamedTensor>>
Module::run(std::string_view entryName, const std::vector<NamedTensor> &inputs,
            const RunOptions &options) {
  Impl &m = *impl_;
  Result<size_t> index = m.entryIndex(entryName);
  if (index.isError())
    return index.status();
  const EntryDesc &entry = m.desc.entries[index.value()];
  EntryState &state = m.entries[index.value()];

  std::vector<const HostTensor *> given;
  CAPTURE_RT_RETURN_IF_ERROR(matchInputs(entry, inputs, given));

  Profile *profile = options.profile;
  if (profile) {
    *profile = Profile();
    profile->dispatchUs.assign(dispatchCount(entry), 0.0);
    // One-off work (the profiled recording) stays out of the stages.
    CAPTURE_RT_RETURN_IF_ERROR(prepareProfile(m, state, options.eager));
  }
  StageTimer timer(profile);

  // One packed upload: every input lands at its offset in the mapped
  // staging buffer; the recorded copy moves the whole buffer at once.
  for (size_t j = 0; j < entry.inputs.size(); ++j)
    if (given[j] && entry.inputs[j].size)
      std::memcpy(state.stagingIn.mapped() + entry.inputs[j].offset,
                  given[j]->data.data(), entry.inputs[j].size);
  if (state.train)
    writeTrainInputs(m, state);
  if (!entry.inputs.empty())
    CAPTURE_RT_RETURN_IF_ERROR(state.stagingIn.flush());
  timer.lap(&HostStages::packUs);

  // A failed replay leaves scratch undefined: probes must not read it.
  m.lastReplayed = -1;
  if (options.eager) {
    CAPTURE_RT_RETURN_IF_ERROR(runEager(m, state, profile, timer));
  } else {
    std::string what = "replay of entry '" + entry.name + "'";
    // The profiled variant exists only once prepareProfile recorded it
    // (never on a device without timestamps).
    VkCommandBuffer cmd =
        profile && state.profiledCmd ? state.profiledCmd : state.cmd;
    CAPTURE_RT_RETURN_IF_ERROR(m.dev.submit(cmd, m.fence, what));
    timer.lap(&HostStages::submitUs);
    CAPTURE_RT_RETURN_IF_ERROR(m.dev.wait(m.fence, what));
    timer.lap(&HostStages::waitUs);
  }
  m.lastReplayed = static_cast<int64_t>(index.value());

  std::vector<NamedTensor> outputs;
  outputs.reserve(entry.outputs.size());
  if (!entry.outputs.empty())
    CAPTURE_RT_RETURN_IF_ERROR(state.stagingOut.invalidate());
  for (const TensorSlotDesc &slot : entry.outputs) {
    NamedTensor out;
    out.name = slot.name;
    out.tensor.dtype = slot.dtype;
    out.tensor.shape = slot.shape;
    const uint8_t *src = state.stagingOut.mapped() + slot.offset;
    out.tensor.data.assign(src, src + slot.size);
    outputs.push_back(std::move(out));
  }
  // A refused step ran on the device: its profile is still filled.
  Status step = state.train ? finishTrainStep(m, state) : Status::ok();
  timer.lap(&HostStages::unpackUs);
  if (profile)
    CAPTURE_RT_RETURN_IF_ERROR(
        finishProfile(m, state, options.eager, *profile));
  if (step.isError())
    return step;
  return outputs;
}

} // namespace capture::rt
