//===- host_module.cpp - A module run by the cpu driver -------------------===//
//
// Host memory is the device memory: an entry's inputs are packed straight
// into its Input buffer and its outputs read from its Output buffer, with
// no staging, no upload skipping to track and no submission. Everything a
// call accepts or refuses comes from the core (core/entry_io.h), which the
// Vulkan driver uses too.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/host_module.h"

#include "capture/rt/capmod.h"
#include "core/entry_io.h"
#include "host_schedule.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sched.h>
#include <set>

namespace capture::rt {
namespace {

/// Host memory of one buffer, 64-byte aligned (a cache line, and the
/// widest vector load of the host code).
struct HostBuffer {
  /// The bytes; null for an empty buffer.
  std::unique_ptr<uint8_t, decltype(&std::free)> bytes{nullptr, &std::free};
};

/// What a loaded entry keeps between runs.
struct HostEntry {
  /// Its schedule, resolved to calls.
  HostSchedule schedule;
  /// Per EntryDesc::indexChecks, its output's index.
  std::vector<size_t> indexCheckOutputs;
  /// The weights a dispatch of the entry reads.
  std::vector<size_t> weightsRead;
  /// Present exactly for training entries.
  std::optional<TrainRuntime> train;
};

} // namespace

struct HostModule::Impl {
  /// The verified module.
  ModuleDesc desc;
  /// Its loaded host code; set once load succeeds.
  std::optional<HostCode> code;
  /// One per ModuleDesc::buffers entry.
  std::vector<HostBuffer> buffers;
  /// Where each buffer's bytes start (buffers[i].bytes.get()).
  std::vector<uint8_t *> bases;
  /// Names of the weights that hold no value yet.
  std::set<std::string> unsetWeights;
  /// Parallel to desc.entries.
  std::vector<HostEntry> entries;
  /// The threads that run the schedules; created once load succeeds.
  std::unique_ptr<HostPool> pool;

  /// desc.entries[entry], or an error when `entry` is not a handle.
  Result<const EntryDesc *> entryOf(size_t entry, const char *operation) const {
    if (entry < desc.entries.size())
      return &desc.entries[entry];
    return Status::error(std::string(operation) + ": entry handle " +
                         std::to_string(entry) + " is out of range; the " +
                         "module has " + std::to_string(desc.entries.size()) +
                         " entries (expected a handle from entryIndex)");
  }
};

HostModule::HostModule(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HostModule::~HostModule() = default;

Result<std::unique_ptr<HostModule>>
HostModule::loadFile(const std::string &path,
                     const HostModuleOptions &options) {
  Result<ModuleDesc> desc = readCapmodFile(path);
  if (desc.isError())
    return desc.status();
  return load(std::move(desc).value(), options);
}

Result<std::unique_ptr<HostModule>>
HostModule::loadBytes(const uint8_t *data, size_t size,
                      const HostModuleOptions &options) {
  Result<ModuleDesc> desc = readCapmod(data, size);
  if (desc.isError())
    return desc.status();
  return load(std::move(desc).value(), options);
}

Result<std::unique_ptr<HostModule>>
HostModule::load(ModuleDesc desc, const HostModuleOptions &options) {
  CAPTURE_RT_RETURN_IF_ERROR(verifyModuleDesc(desc));
  if (!desc.hostCode)
    return Status::error(
        "the module has no host code, which the cpu driver runs; expected "
        "a module compiled for the cpu target (capture-aot --target=cpu)");
  auto impl = std::make_unique<Impl>();
  impl->desc = std::move(desc);
  Impl &m = *impl;
  Result<HostCode> code =
      HostCode::load(m.desc.hostCode->library, m.desc.hostCode->isaLevel);
  if (code.isError())
    return code.status();
  m.code.emplace(std::move(code).value());
  std::vector<HostCode::Entry> kernels;
  for (const KernelDesc &k : m.desc.kernels) {
    Result<HostCode::Entry> e = m.code->entry(k.name);
    if (e.isError())
      return e.status();
    kernels.push_back(e.value());
  }

  // Zeroed: Optimizer buffers start at zero (moments, as torch's do), and
  // nothing reads another buffer before it is written.
  for (const BufferDesc &b : m.desc.buffers) {
    HostBuffer buffer;
    if (b.size) {
      uint64_t size = (b.size + 63) / 64 * 64;
      buffer.bytes.reset(static_cast<uint8_t *>(std::aligned_alloc(64, size)));
      if (!buffer.bytes)
        return Status::error("out of host memory for buffer " +
                             std::to_string(m.buffers.size()) + " (" +
                             bufferKindName(b.kind) + ", " +
                             std::to_string(b.size) + " bytes)");
      std::memset(buffer.bytes.get(), 0, size);
    }
    m.bases.push_back(buffer.bytes.get());
    m.buffers.push_back(std::move(buffer));
  }
  if (m.desc.weightsBuffer >= 0) {
    std::vector<uint8_t> image = initialWeights(m.desc, m.unsetWeights);
    if (!image.empty())
      std::memcpy(m.bases[m.desc.weightsBuffer], image.data(), image.size());
  }
  if (m.desc.constantsBuffer >= 0) {
    uint8_t *constants = m.bases[m.desc.constantsBuffer];
    if (m.desc.constants && !m.desc.constants->empty())
      std::memcpy(constants, m.desc.constants->data(),
                  m.desc.constants->size());
    for (const ConstantFill &f : constantFills(m.desc))
      for (uint64_t at = f.offset; at < f.offset + f.size; at += 4)
        std::memcpy(constants + at, &f.value, 4);
  }

  for (const EntryDesc &e : m.desc.entries) {
    HostEntry entry;
    Result<HostSchedule> s = resolveSchedule(m.desc, e, kernels, m.bases);
    if (s.isError())
      return s.status();
    entry.schedule = std::move(s).value();
    entry.indexCheckOutputs = indexCheckOutputsOf(e);
    entry.weightsRead = weightsReadBy(m.desc, e);
    if (e.train)
      entry.train = makeTrainRuntime(e);
    m.entries.push_back(std::move(entry));
  }
  unsigned threads = options.threads;
  if (threads == 0) {
    cpu_set_t set;
    threads = sched_getaffinity(0, sizeof(set), &set) == 0
                  ? static_cast<unsigned>(CPU_COUNT(&set))
                  : std::thread::hardware_concurrency();
  }
  m.pool = std::make_unique<HostPool>(std::max(threads, 1u));
  return std::unique_ptr<HostModule>(new HostModule(std::move(impl)));
}

const ModuleDesc &HostModule::desc() const { return impl_->desc; }

unsigned HostModule::threads() const { return impl_->pool->threads(); }

Result<size_t> HostModule::entryIndex(std::string_view name) const {
  return findEntryIndex(impl_->desc, name);
}

Result<RunResult> HostModule::run(size_t entryHandle,
                                  const std::vector<TensorView> &inputs,
                                  const std::vector<OutputView> &outputs,
                                  const std::vector<std::string> &probeNames) {
  Impl &m = *impl_;
  Result<const EntryDesc *> found = m.entryOf(entryHandle, "run");
  if (found.isError())
    return found.status();
  const EntryDesc &entry = *found.value();
  HostEntry &state = m.entries[entryHandle];

  MatchedCall call;
  CAPTURE_RT_RETURN_IF_ERROR(matchCall(m.desc, entry, state.weightsRead,
                                       m.unsetWeights, state.indexCheckOutputs,
                                       inputs, outputs, probeNames, call));

  if (!entry.inputs.empty()) {
    uint8_t *in = m.bases[entry.inputBuffer];
    for (size_t j = 0; j < entry.inputs.size(); ++j)
      if (call.given[j] && entry.inputs[j].size)
        std::memcpy(in + entry.inputs[j].offset, call.given[j]->data,
                    entry.inputs[j].size);
    if (state.train)
      writeTrainInputs(entry, *state.train, in);
  }
  runSchedule(state.schedule, *m.pool);

  const uint8_t *out =
      entry.outputs.empty() ? nullptr : m.bases[entry.outputBuffer];
  // The update kernel made the refusal's test itself and wrote nothing.
  CAPTURE_RT_RETURN_IF_ERROR(runVerdict(entry, state.indexCheckOutputs, out,
                                        state.train ? &*state.train : nullptr));
  RunResult result;
  result.outputs =
      unpackOutputs(entry, state.indexCheckOutputs, out, call.into);
  for (size_t p : call.probes) {
    const TensorSlotDesc &slot = entry.probes[p];
    result.probes.push_back(
        slotTensor(slot, m.bases[slot.buffer] + slot.offset));
  }
  return result;
}

Status HostModule::setParam(std::string_view name, const HostTensor &value) {
  Result<const WeightDesc *> w = checkParam(impl_->desc, name, value);
  if (w.isError())
    return w.status();
  const WeightDesc &weight = *w.value();
  if (weight.size)
    std::memcpy(impl_->bases[impl_->desc.weightsBuffer] + weight.offset,
                value.data.data(), weight.size);
  impl_->unsetWeights.erase(weight.name);
  return Status::ok();
}

Result<HostTensor> HostModule::getParam(std::string_view name) const {
  Result<const WeightDesc *> w = findWeight(impl_->desc, name);
  if (w.isError())
    return w.status();
  const WeightDesc &weight = *w.value();
  const uint8_t *src = impl_->bases[impl_->desc.weightsBuffer] + weight.offset;
  HostTensor t;
  t.dtype = weight.dtype;
  t.shape = weight.shape;
  t.data.assign(src, src + weight.size);
  return t;
}

Result<TrainState> HostModule::trainState(size_t entry) const {
  Result<const EntryDesc *> e = impl_->entryOf(entry, "trainState");
  if (e.isError())
    return e.status();
  if (!impl_->entries[entry].train)
    return Status::error("trainState: entry '" + e.value()->name + "' is a " +
                         entryKindName(e.value()->kind) +
                         " entry, expected a Train entry");
  return impl_->entries[entry].train->state;
}

Status HostModule::setLearningRate(size_t entry, float lr) {
  Result<TrainState> state = trainState(entry);
  if (state.isError())
    return state.status().withContext("setLearningRate");
  AdamWDesc adamw = state.value().adamw;
  adamw.lr = lr;
  CAPTURE_RT_RETURN_IF_ERROR(checkAdamW(adamw).withContext(
      "setLearningRate: entry '" + impl_->desc.entries[entry].name + "'"));
  impl_->entries[entry].train->state.adamw = adamw;
  return Status::ok();
}

} // namespace capture::rt
