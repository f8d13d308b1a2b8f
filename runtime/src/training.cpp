//===- training.cpp - Training entries: step counter, hyperparameters -----===//
//
// The recorded command buffer of a training entry never changes: the step
// counter and the hyperparameters reach the kernels only through the input
// staging buffer, written before each submit. So setting a learning rate
// costs a few stores, and a refused step (non-finite gradient norm, which
// the AdamW kernel itself checks on the device) only has to leave the
// counter alone for the host state to match the untouched device state.
//
//===----------------------------------------------------------------------===//

#include "module_impl.h"

#include "capture/rt/capmod.h"

#include "check_util.h"

#include <cmath>
#include <cstring>

namespace capture::rt {

Result<size_t> Module::Impl::trainEntryIndex(std::string_view name,
                                             const char *operation) const {
  Result<size_t> index = entryIndex(name);
  if (index.isError())
    return index.status();
  const EntryDesc &e = desc.entries[index.value()];
  if (!e.train)
    return Status::error(std::string(operation) + ": entry '" + e.name +
                         "' is a " + entryKindName(e.kind) +
                         " entry, expected a Train entry");
  return index;
}

Status Module::setLearningRate(std::string_view entry, float lr) {
  return setLearningRate(entry, 0, lr);
}

Status Module::setLearningRate(std::string_view entry, size_t group, float lr) {
  Result<size_t> index = impl_->trainEntryIndex(entry, "setLearningRate");
  if (index.isError())
    return index.status();
  return setLearningRateAt(index.value(), group, lr);
}

Status Module::setLearningRateAt(size_t index, size_t group, float lr) {
  TrainState &state = impl_->entries[index].train->state;
  std::string where =
      "setLearningRate: entry '" + impl_->desc.entries[index].name + "'";
  if (group == 0) {
    AdamWDesc adamw = state.adamw;
    adamw.lr = lr;
    // The other values were checked already: only lr can be refused.
    CAPTURE_RT_RETURN_IF_ERROR(checkAdamW(adamw).withContext(where));
    state.adamw = adamw;
    return Status::ok();
  }
  if (group > state.groups.size()) {
    size_t groups = state.groups.size() + 1;
    return Status::error(where + " has " + std::to_string(groups) +
                         (groups == 1 ? " param group" : " param groups") +
                         ", so group " + std::to_string(group) +
                         " does not exist; expected 0.." +
                         std::to_string(groups - 1));
  }
  AdamWDesc adamw = state.groups[group - 1];
  adamw.lr = lr;
  CAPTURE_RT_RETURN_IF_ERROR(checkAdamW(adamw).withContext(
      where + ", param group " + std::to_string(group)));
  state.groups[group - 1] = adamw;
  return Status::ok();
}

Status Module::setMaxGradNorm(std::string_view entry, float maxGradNorm) {
  Result<size_t> index = impl_->trainEntryIndex(entry, "setMaxGradNorm");
  if (index.isError())
    return index.status();
  return setMaxGradNormAt(index.value(), maxGradNorm);
}

Status Module::setMaxGradNormAt(size_t index, float maxGradNorm) {
  TrainState &state = impl_->entries[index].train->state;
  const std::string &entry = impl_->desc.entries[index].name;
  if (!state.maxGradNorm)
    return Status::error("setMaxGradNorm: entry '" + entry +
                         "' does not clip gradients (it was compiled without "
                         "max_grad_norm), expected an entry that clips");
  CAPTURE_RT_RETURN_IF_ERROR(
      checkMaxGradNorm(maxGradNorm)
          .withContext("setMaxGradNorm: entry '" + entry + "'"));
  state.maxGradNorm = maxGradNorm;
  return Status::ok();
}

/// "decoupled = true (AdamW's decoupled weight decay)" or the L2 mode's.
static std::string weightDecayMode(bool decoupled) {
  return decoupled ? "decoupled = true (AdamW's decoupled weight decay)"
                   : "decoupled = false (Adam's L2 weight decay)";
}

Status Module::setAdamW(std::string_view entry, const AdamWDesc &adamw) {
  Result<size_t> index = impl_->trainEntryIndex(entry, "setAdamW");
  if (index.isError())
    return index.status();
  return setAdamWAt(index.value(), adamw);
}

Status Module::setAdamWAt(size_t index, const AdamWDesc &adamw) {
  std::string where =
      "setAdamW: entry '" + impl_->desc.entries[index].name + "'";
  TrainState &state = impl_->entries[index].train->state;
  // The mode is compiled into the update kernel; the values are only inputs.
  if (adamw.decoupled != state.adamw.decoupled)
    return Status::error(where + ": the update was compiled for " +
                         weightDecayMode(state.adamw.decoupled) +
                         " and cannot switch to " +
                         weightDecayMode(adamw.decoupled) +
                         "; recompile the step to change the mode");
  CAPTURE_RT_RETURN_IF_ERROR(checkAdamW(adamw).withContext(where));
  state.adamw = adamw;
  return Status::ok();
}

Status Module::setTrainStep(std::string_view entry, uint64_t step) {
  Result<size_t> index = impl_->trainEntryIndex(entry, "setTrainStep");
  if (index.isError())
    return index.status();
  setTrainStepAt(index.value(), step);
  return Status::ok();
}

void Module::setTrainStepAt(size_t index, uint64_t step) {
  settleDeferred(*impl_);
  impl_->entries[index].train->state.step = step;
}

Result<TrainState> Module::trainState(std::string_view entry) const {
  Result<size_t> index = impl_->trainEntryIndex(entry, "trainState");
  if (index.isError())
    return index.status();
  return trainStateAt(index.value());
}

TrainState Module::trainStateAt(size_t index) const {
  settleDeferred(*impl_);
  return impl_->entries[index].train->state;
}

Result<AdamWMoments> Module::readMoments(std::string_view entry) {
  Result<size_t> index = impl_->trainEntryIndex(entry, "readMoments");
  if (index.isError())
    return index.status();
  return readMomentsAt(index.value());
}

Result<AdamWMoments> Module::readMomentsAt(size_t index) {
  const EntryDesc &e = impl_->desc.entries[index];
  AdamWMoments moments;
  for (int which = 0; which < 2; ++which) {
    const BufferRangeDesc &r = which ? e.train->moment2 : e.train->moment1;
    Result<std::vector<uint8_t>> bytes =
        impl_->download(r.buffer, r.offset, r.size,
                        std::string(which ? "second" : "first") +
                            " moments of entry '" + e.name + "'");
    if (bytes.isError())
      return bytes.status();
    HostTensor &t = which ? moments.v : moments.m;
    t.dtype = DType::F32;
    t.shape = {static_cast<int64_t>(r.size / 4)};
    t.data = std::move(bytes).value();
  }
  return moments;
}

Status Module::writeMoments(std::string_view entry,
                            const AdamWMoments &moments) {
  Result<size_t> index = impl_->trainEntryIndex(entry, "writeMoments");
  if (index.isError())
    return index.status();
  return writeMomentsAt(index.value(), moments);
}

Status Module::writeMomentsAt(size_t index, const AdamWMoments &moments) {
  const EntryDesc &e = impl_->desc.entries[index];
  for (int which = 0; which < 2; ++which) {
    const BufferRangeDesc &r = which ? e.train->moment2 : e.train->moment1;
    const HostTensor &t = which ? moments.v : moments.m;
    std::vector<int64_t> want = {static_cast<int64_t>(r.size / 4)};
    if (t.dtype != DType::F32 || t.shape != want || t.data.size() != r.size)
      return Status::error("writeMoments: entry '" + e.name + "': the " +
                           (which ? "second" : "first") + " moments must be " +
                           formatType(want, DType::F32) + " (" +
                           std::to_string(r.size) + " bytes), got " +
                           formatType(t.shape, t.dtype) + " (" +
                           std::to_string(t.data.size()) + " bytes)");
  }
  for (int which = 0; which < 2; ++which) {
    const BufferRangeDesc &r = which ? e.train->moment2 : e.train->moment1;
    const HostTensor &t = which ? moments.v : moments.m;
    CAPTURE_RT_RETURN_IF_ERROR(
        impl_->upload(r.buffer, r.offset, t.data.data(), t.data.size(),
                      std::string(which ? "second" : "first") +
                          " moments of entry '" + e.name + "'"));
  }
  return Status::ok();
}

Status Module::copyOptimizerState(std::string_view entry, const Module &from,
                                  std::string_view fromEntry) {
  settleDeferred(*impl_);
  Module::Impl &m = *impl_;
  const Module::Impl &f = *from.impl_;
  Result<size_t> index = m.trainEntryIndex(entry, "copyOptimizerState");
  if (index.isError())
    return index.status();
  Result<size_t> fromIndex = f.trainEntryIndex(fromEntry, "copyOptimizerState");
  if (fromIndex.isError())
    return fromIndex.status().withContext("the module to copy from");
  if (&from == this && index.value() == fromIndex.value())
    return Status::ok();
  const EntryDesc &e = m.desc.entries[index.value()];
  const TrainDesc &to = *e.train;
  const TrainDesc &src = *f.desc.entries[fromIndex.value()].train;
  std::string what = "optimizer state of entry '" + e.name + "'";
  if (f.device.get() != m.device.get())
    return Status::error("copyOptimizerState: the module to copy from lives "
                         "on device '" +
                         f.device->info().name +
                         "', expected this module's ('" +
                         m.device->info().name + "')");
  if (src.moment1.size != to.moment1.size)
    return Status::error(
        "copyOptimizerState: entry '" + e.name + "' has moments of " +
        std::to_string(to.moment1.size / 4) + " floats, entry '" +
        std::string(fromEntry) + "' of the module to copy from " +
        std::to_string(src.moment1.size / 4) +
        ": expected the same parameters (another recording of one step)");
  if (m.host) {
    for (int which = 0; which < 2; ++which) {
      const BufferRangeDesc &s = which ? src.moment2 : src.moment1;
      const BufferRangeDesc &d = which ? to.moment2 : to.moment1;
      std::memmove(m.host->buffer(d.buffer) + d.offset,
                   f.host->buffer(s.buffer) + s.offset, d.size);
    }
    m.entries[index.value()].train->state.step =
        f.entries[fromIndex.value()].train->state.step;
    return Status::ok();
  }
  CAPTURE_RT_RETURN_IF_ERROR(beginOneTimeCommands(m.utilityCmd, what));
  for (int which = 0; which < 2; ++which) {
    const BufferRangeDesc &s = which ? src.moment2 : src.moment1;
    const BufferRangeDesc &d = which ? to.moment2 : to.moment1;
    recordUtilityCopy(m.utilityCmd, f.buffers[s.buffer]->handle(), s.offset,
                      m.buffers[d.buffer]->handle(), d.offset, d.size);
  }
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkEndCommandBuffer(m.utilityCmd), "vkEndCommandBuffer", what));
  CAPTURE_RT_RETURN_IF_ERROR(
      m.dev.submitAndWait(m.utilityCmd, m.fence, "copy of the " + what));
  m.entries[index.value()].train->state.step =
      f.entries[fromIndex.value()].train->state.step;
  return Status::ok();
}

uint64_t Module::recordCount() const { return impl_->recordCount; }

} // namespace capture::rt
