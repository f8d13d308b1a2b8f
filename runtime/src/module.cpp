//===- module.cpp - Loading a module; parameters and probes ---------------===//

#include "capture/rt/suggest.h"
#include "module_impl.h"

#include "capture/rt/capmod.h"
#include "capture/rt/initializer.h"

#include <algorithm>
#include <cstring>

namespace capture::rt {
namespace {

/// Whether dispatches may leave entry `e`'s Input buffer as the host sent
/// it: no other entry packs its inputs there and no dispatch writes it.
bool inputBufferExclusive(const ModuleDesc &desc, size_t e) {
  uint32_t input = desc.entries[e].inputBuffer;
  for (size_t i = 0; i < desc.entries.size(); ++i) {
    const EntryDesc &entry = desc.entries[i];
    if (i != e && !entry.inputs.empty() && entry.inputBuffer == input)
      return false;
    for (const CommandDesc &c : entry.commands)
      if (c.kind == CommandDesc::Kind::Dispatch)
        for (uint32_t w : c.dispatch.writes)
          if (c.dispatch.bindings[w].buffer == input)
            return false;
  }
  return true;
}

/// The Constants buffer: its initial bytes uploaded, then one fill submit
/// for the splat ranges and the zeros between them (disjoint ranges, so the
/// fills need no ordering among themselves).
Status uploadConstants(Module::Impl &m) {
  auto cb = static_cast<uint32_t>(m.desc.constantsBuffer);
  uint64_t have = m.desc.constants ? m.desc.constants->size() : 0;
  if (have)
    CAPTURE_RT_RETURN_IF_ERROR(
        m.upload(cb, 0, m.desc.constants->data(), have, "constants"));
  std::vector<FillRange> ranges;
  for (const ConstantFill &f : constantFills(m.desc))
    ranges.push_back({cb, f.offset, f.size, f.value});
  if (ranges.empty())
    return Status::ok();
  return m.zeroFill(ranges, "constants");
}

/// Allocates everything, uploads weights and constants, records entries.
/// With `sharedWeights`, uses it as the Weights buffer and uploads no
/// initial weights.
/// The device-independent state of entry `i` at load.
EntryState entryStateOf(const ModuleDesc &desc, size_t i) {
  const EntryDesc &e = desc.entries[i];
  EntryState state;
  state.index = i;
  state.weightsRead = weightsReadBy(desc, e);
  state.indexCheckOutputs = indexCheckOutputsOf(e);
  if (e.train)
    state.train = makeTrainRuntime(e);
  return state;
}

/// The buffers' contents at load, whatever the driver: the initial
/// weights, unless `shared` (then m.unsetWeights is the sharer's already),
/// and the constants.
Status fillInitialContents(Module::Impl &m, bool shared) {
  if (!shared)
    m.unsetWeights = std::make_shared<std::set<std::string>>();
  if (m.desc.weightsBuffer >= 0 && !shared) {
    // One upload of the whole buffer, initializers evaluated here.
    uint32_t wb = static_cast<uint32_t>(m.desc.weightsBuffer);
    std::vector<uint8_t> image = initialWeights(m.desc, *m.unsetWeights);
    CAPTURE_RT_RETURN_IF_ERROR(
        m.upload(wb, 0, image.data(), image.size(), "initial weights"));
  }
  if (m.desc.constantsBuffer >= 0)
    CAPTURE_RT_RETURN_IF_ERROR(uploadConstants(m));
  return Status::ok();
}

/// build() on the host device: the host driver in place of the Vulkan
/// objects; entries keep only their device-independent state. With
/// `sharedWeights` (and m.unsetWeights already shared), no initial weights.
Status buildOnHost(Module::Impl &m, std::shared_ptr<uint8_t> sharedWeights) {
  bool shared = sharedWeights != nullptr;
  Result<std::unique_ptr<HostDriver>> driver =
      HostDriver::load(m.desc, m.dev.hostThreads, std::move(sharedWeights));
  if (driver.isError())
    return driver.status();
  m.host = std::move(driver).value();
  for (size_t i = 0; i < m.desc.entries.size(); ++i)
    m.entries.push_back(entryStateOf(m.desc, i));
  // The driver's buffers start zeroed: the Optimizer buffers need nothing.
  return fillInitialContents(m, shared);
}

Status build(Module::Impl &m, std::shared_ptr<Buffer> sharedWeights) {
  Device::Impl &dev = m.dev;
  for (size_t i = 0; i < m.desc.buffers.size(); ++i) {
    const BufferDesc &b = m.desc.buffers[i];
    if (sharedWeights && static_cast<int64_t>(i) == m.desc.weightsBuffer) {
      m.buffers.push_back(sharedWeights);
      continue;
    }
    Result<Buffer> buffer = Buffer::create(
        dev, b.size, Buffer::Usage::Device,
        "buffer " + std::to_string(i) + " (" + bufferKindName(b.kind) + ")");
    if (buffer.isError())
      return buffer.status();
    m.buffers.push_back(std::make_shared<Buffer>(std::move(buffer).value()));
  }
  for (const KernelDesc &k : m.desc.kernels) {
    Result<KernelPipeline> p = KernelPipeline::create(dev, k);
    if (p.isError())
      return p.status();
    m.pipelines.push_back(std::move(p).value());
  }

  VkCommandPoolCreateInfo poolInfo{};
  poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = dev.queueFamily;
  CAPTURE_RT_RETURN_IF_ERROR(vkCheck(
      vkCreateCommandPool(dev.device, &poolInfo, nullptr, &m.commandPool),
      "vkCreateCommandPool", "the module"));
  VkFenceCreateInfo fenceInfo{};
  fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  // Created signalled: every submit resets it first, and a module whose
  // load fails before its first submit must not wait forever on it.
  fenceInfo.flags = VK_FENCE_CREATE_SIGNALED_BIT;
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkCreateFence(dev.device, &fenceInfo, nullptr, &m.fence),
              "vkCreateFence", "the module"));

  // One per entry, then the utility, upload and probe command buffers.
  std::vector<VkCommandBuffer> cmds(m.desc.entries.size() + 3);
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = m.commandPool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = static_cast<uint32_t>(cmds.size());
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkAllocateCommandBuffers(dev.device, &alloc, cmds.data()),
              "vkAllocateCommandBuffers", "the module"));
  m.utilityCmd = cmds[m.desc.entries.size()];
  m.uploadCmd = cmds[m.desc.entries.size() + 1];
  m.probeCmd = cmds[m.desc.entries.size() + 2];

  for (size_t i = 0; i < m.desc.entries.size(); ++i) {
    const EntryDesc &e = m.desc.entries[i];
    EntryState state = entryStateOf(m.desc, i);
    state.cmd = cmds[i];
    if (!e.inputs.empty()) {
      Result<Buffer> in = Buffer::create(
          dev, m.desc.buffers[e.inputBuffer].size, Buffer::Usage::Upload,
          "input staging of entry '" + e.name + "'");
      if (in.isError())
        return in.status();
      state.stagingIn = std::move(in).value();
      std::memset(state.stagingIn.mapped(), 0, state.stagingIn.size());
      state.sentInputs.assign(state.stagingIn.size(), 0);
      state.canSkipInputs = inputBufferExclusive(m.desc, i);
    }
    if (!e.outputs.empty()) {
      Result<Buffer> out = Buffer::create(
          dev, m.desc.buffers[e.outputBuffer].size, Buffer::Usage::Readback,
          "output staging of entry '" + e.name + "'");
      if (out.isError())
        return out.status();
      state.stagingOut = std::move(out).value();
    }
    m.entries.push_back(std::move(state));
  }
  CAPTURE_RT_RETURN_IF_ERROR(createDescriptorSets(m));

  CAPTURE_RT_RETURN_IF_ERROR(fillInitialContents(m, sharedWeights != nullptr));
  // Moments start at zero as torch.optim.AdamW's do; device memory starts
  // undefined.
  // Optimizer buffer sizes are multiples of 4 (verified), so VK_WHOLE_SIZE
  // covers every byte.
  std::vector<FillRange> optimizer;
  for (size_t i = 0; i < m.desc.buffers.size(); ++i)
    if (m.desc.buffers[i].kind == BufferKind::Optimizer)
      optimizer.push_back({static_cast<uint32_t>(i), 0, VK_WHOLE_SIZE});
  if (!optimizer.empty())
    CAPTURE_RT_RETURN_IF_ERROR(m.zeroFill(optimizer, "Optimizer buffers"));
  for (EntryState &state : m.entries)
    CAPTURE_RT_RETURN_IF_ERROR(recordEntry(m, state, state.cmd, nullptr));
  return Status::ok();
}

} // namespace

Module::Impl::Impl(std::shared_ptr<Device> device, ModuleDesc desc)
    : device(std::move(device)), dev(this->device->impl()),
      desc(std::move(desc)) {}

Module::Impl::~Impl() {
  // A waiting deferred run refers to this module's command buffers.
  if (dev.hasDeferred(this))
    (void)dev.submitDeferred();
  // Every submit is waited for, but a failed wait can leave work pending
  // (not on a lost device, where it never ends).
  dev.waitBeforeDestroy(fence);
  for (EntryState &e : entries)
    if (e.queries)
      vkDestroyQueryPool(dev.device, e.queries, nullptr);
  if (descriptorPool)
    vkDestroyDescriptorPool(dev.device, descriptorPool, nullptr);
  for (VkBufferView view : bufferViews)
    vkDestroyBufferView(dev.device, view, nullptr);
  if (commandPool)
    vkDestroyCommandPool(dev.device, commandPool, nullptr);
  if (fence)
    vkDestroyFence(dev.device, fence, nullptr);
  entries.clear();
  pipelines.clear();
  buffers.clear();
}

Result<size_t> Module::Impl::entryIndex(std::string_view name) const {
  return findEntryIndex(desc, name);
}

Status Module::Impl::upload(uint32_t buffer, uint64_t offset,
                            const uint8_t *data, uint64_t size,
                            const std::string &what) {
  if (size == 0)
    return Status::ok();
  if (host) {
    std::memcpy(host->buffer(buffer) + offset, data, size);
    return Status::ok();
  }
  Result<Buffer> staging =
      Buffer::create(dev, size, Buffer::Usage::Upload, "staging of " + what);
  if (staging.isError())
    return staging.status();
  std::memcpy(staging->mapped(), data, size);
  CAPTURE_RT_RETURN_IF_ERROR(staging->flush());
  CAPTURE_RT_RETURN_IF_ERROR(beginOneTimeCommands(utilityCmd, what));
  recordUtilityCopy(utilityCmd, staging->handle(), 0, buffers[buffer]->handle(),
                    offset, size);
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkEndCommandBuffer(utilityCmd), "vkEndCommandBuffer", what));
  return dev.submitAndWait(utilityCmd, fence, "upload of " + what);
}

Result<std::vector<uint8_t>> Module::Impl::download(uint32_t buffer,
                                                    uint64_t offset,
                                                    uint64_t size,
                                                    const std::string &what) {
  if (size == 0)
    return std::vector<uint8_t>();
  if (host) {
    const uint8_t *bytes = host->buffer(buffer) + offset;
    return std::vector<uint8_t>(bytes, bytes + size);
  }
  Result<Buffer> staging =
      Buffer::create(dev, size, Buffer::Usage::Readback, "staging of " + what);
  if (staging.isError())
    return staging.status();
  CAPTURE_RT_RETURN_IF_ERROR(beginOneTimeCommands(utilityCmd, what));
  recordUtilityCopy(utilityCmd, buffers[buffer]->handle(), offset,
                    staging->handle(), 0, size);
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkEndCommandBuffer(utilityCmd), "vkEndCommandBuffer", what));
  CAPTURE_RT_RETURN_IF_ERROR(
      dev.submitAndWait(utilityCmd, fence, "read-back of " + what));
  CAPTURE_RT_RETURN_IF_ERROR(staging->invalidate());
  return std::vector<uint8_t>(staging->mapped(), staging->mapped() + size);
}

Status Module::Impl::uploadRegions(uint32_t buffer,
                                   const std::vector<uint8_t> &image,
                                   const std::vector<VkBufferCopy> &regions,
                                   const std::string &what) {
  if (regions.empty() || image.empty())
    return Status::ok();
  if (host) {
    for (const VkBufferCopy &r : regions)
      std::memcpy(host->buffer(buffer) + r.dstOffset,
                  image.data() + r.srcOffset, r.size);
    return Status::ok();
  }
  Result<Buffer> staging = Buffer::create(
      dev, image.size(), Buffer::Usage::Upload, "staging of " + what);
  if (staging.isError())
    return staging.status();
  std::memcpy(staging->mapped(), image.data(), image.size());
  CAPTURE_RT_RETURN_IF_ERROR(staging->flush());
  CAPTURE_RT_RETURN_IF_ERROR(beginOneTimeCommands(utilityCmd, what));
  recordUtilityCopyRegions(utilityCmd, staging->handle(),
                           buffers[buffer]->handle(), regions);
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkEndCommandBuffer(utilityCmd), "vkEndCommandBuffer", what));
  return dev.submitAndWait(utilityCmd, fence, "upload of " + what);
}

Status Module::Impl::zeroFill(const std::vector<FillRange> &ranges,
                              const std::string &what) {
  if (host) {
    for (const FillRange &r : ranges) {
      uint64_t size = r.size == VK_WHOLE_SIZE
                          ? desc.buffers[r.buffer].size - r.offset
                          : r.size;
      uint8_t *at = host->buffer(r.buffer) + r.offset;
      for (uint64_t k = 0; k + 4 <= size; k += 4)
        std::memcpy(at + k, &r.data, 4);
    }
    return Status::ok();
  }
  CAPTURE_RT_RETURN_IF_ERROR(beginOneTimeCommands(utilityCmd, what));
  recordUtilityFill(*this, utilityCmd, ranges);
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkEndCommandBuffer(utilityCmd), "vkEndCommandBuffer", what));
  return dev.submitAndWait(utilityCmd, fence, "zero fill of " + what);
}

Module::Module(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Module::~Module() = default;

Result<std::unique_ptr<Module>> Module::loadFile(std::shared_ptr<Device> device,
                                                 const std::string &path) {
  return loadFile(std::move(device), path, LoadOptions());
}

Result<std::unique_ptr<Module>>
Module::loadBytes(std::shared_ptr<Device> device, const uint8_t *data,
                  size_t size) {
  return loadBytes(std::move(device), data, size, LoadOptions());
}

Result<std::unique_ptr<Module>> Module::load(std::shared_ptr<Device> device,
                                             ModuleDesc desc) {
  return load(std::move(device), std::move(desc), LoadOptions());
}

Result<std::unique_ptr<Module>> Module::loadFile(std::shared_ptr<Device> device,
                                                 const std::string &path,
                                                 const LoadOptions &options) {
  Result<ModuleDesc> desc = readCapmodFile(path);
  if (desc.isError())
    return desc.status();
  return load(std::move(device), std::move(desc).value(), options);
}

Result<std::unique_ptr<Module>>
Module::loadBytes(std::shared_ptr<Device> device, const uint8_t *data,
                  size_t size, const LoadOptions &options) {
  Result<ModuleDesc> desc = readCapmod(data, size);
  if (desc.isError())
    return desc.status();
  return load(std::move(device), std::move(desc).value(), options);
}

/// The Weights buffer of `other` when `desc`'s weights can live in it: the
/// same device, and every weight of `desc` in `other` by name with the
/// same dtype, shape and offset (the module's bindings address weights by
/// offset), inside a buffer at least as large.
static Status sharableWeights(const Device &device, const ModuleDesc &desc,
                              const Module &other) {
  std::string where = "LoadOptions::shareWeightsWith: ";
  if (&other.device() != &device)
    return Status::error(where + "the module to share with lives on device '" +
                         other.device().info().name +
                         "', expected the device this module is loaded on ('" +
                         device.info().name + "')");
  if (desc.weightsBuffer < 0)
    return Status::error(where + "this module has no weights, expected a "
                                 "module with weights to share");
  const ModuleDesc &o = other.desc();
  if (o.weightsBuffer < 0)
    return Status::error(where + "the module to share with has no weights");
  for (const WeightDesc &w : desc.weights) {
    const WeightDesc *match = nullptr;
    for (const WeightDesc &ow : o.weights)
      if (ow.name == w.name)
        match = &ow;
    if (!match)
      return Status::error(
          where + "weight '" + w.name + "' " + formatType(w.shape, w.dtype) +
          " is not in the module to share with; its weights: " +
          nameList(o.weights, [](const WeightDesc &x) { return x.name; }));
    if (match->shape != w.shape || match->dtype != w.dtype)
      return Status::error(where + "weight '" + w.name + "' has shape " +
                           formatType(w.shape, w.dtype) + " here but " +
                           formatType(match->shape, match->dtype) +
                           " in the module to share with, expected the same");
    if (match->offset != w.offset)
      return Status::error(
          where + "weight '" + w.name + "' is at byte " +
          std::to_string(w.offset) + " of the Weights buffer here but at " +
          std::to_string(match->offset) +
          " in the module to share with, expected the same layout");
  }
  uint64_t need = desc.buffers[desc.weightsBuffer].size;
  uint64_t have = o.buffers[o.weightsBuffer].size;
  if (need > have)
    return Status::error(where + "this module's Weights buffer is " +
                         std::to_string(need) +
                         " bytes, larger than the shared one (" +
                         std::to_string(have) + " bytes)");
  return Status::ok();
}

Result<std::unique_ptr<Module>> Module::load(std::shared_ptr<Device> device,
                                             ModuleDesc desc,
                                             const LoadOptions &options) {
  if (!device)
    return Status::error("Module::load: no device");
  // Every bound is checked before the first Vulkan object exists.
  CAPTURE_RT_RETURN_IF_ERROR(verifyModuleDesc(desc));
  // The host device runs the host code, not the SPIR-V.
  bool onHost = device->impl().hostThreads != 0;
  if (!onHost)
    CAPTURE_RT_RETURN_IF_ERROR(verifyForDevice(desc, device->limits()));
  std::shared_ptr<Buffer> shared;
  std::shared_ptr<uint8_t> sharedOnHost;
  const Module *other = options.shareWeightsWith;
  if (other) {
    CAPTURE_RT_RETURN_IF_ERROR(sharableWeights(*device, desc, *other));
    auto wb = static_cast<uint32_t>(other->desc().weightsBuffer);
    if (onHost)
      sharedOnHost = other->impl_->host->memoryOf(wb);
    else
      shared = other->impl_->buffers[wb];
  }
  auto impl = std::make_unique<Impl>(std::move(device), std::move(desc));
  if (other)
    impl->unsetWeights = other->impl_->unsetWeights;
  CAPTURE_RT_RETURN_IF_ERROR(onHost
                                 ? buildOnHost(*impl, std::move(sharedOnHost))
                                 : build(*impl, std::move(shared)));
  return std::unique_ptr<Module>(new Module(std::move(impl)));
}

const ReplayCounters &Module::counters() const { return impl_->counters; }

const ModuleDesc &Module::desc() const { return impl_->desc; }

const Device &Module::device() const { return *impl_->device; }

std::vector<std::string> Module::entryNames() const {
  std::vector<std::string> names;
  for (const EntryDesc &e : impl_->desc.entries)
    names.push_back(e.name);
  return names;
}

Result<const EntryDesc *> Module::findEntry(std::string_view name) const {
  Result<size_t> index = impl_->entryIndex(name);
  if (index.isError())
    return index.status();
  return &impl_->desc.entries[index.value()];
}

Status Module::setParam(std::string_view name, const HostTensor &value) {
  Result<const WeightDesc *> w = checkParam(impl_->desc, name, value);
  if (w.isError())
    return w.status();
  const WeightDesc &weight = *w.value();
  CAPTURE_RT_RETURN_IF_ERROR(impl_->upload(
      static_cast<uint32_t>(impl_->desc.weightsBuffer), weight.offset,
      value.data.data(), value.data.size(), "parameter '" + weight.name + "'"));
  impl_->unsetWeights->erase(weight.name);
  return Status::ok();
}

Result<HostTensor> Module::getParam(std::string_view name) {
  Result<const WeightDesc *> w = findWeight(impl_->desc, name);
  if (w.isError())
    return w.status();
  const WeightDesc &weight = *w.value();
  Result<std::vector<uint8_t>> bytes = impl_->download(
      static_cast<uint32_t>(impl_->desc.weightsBuffer), weight.offset,
      weight.size, "parameter '" + weight.name + "'");
  if (bytes.isError())
    return bytes.status();
  HostTensor t;
  t.dtype = weight.dtype;
  t.shape = weight.shape;
  t.data = std::move(bytes).value();
  return t;
}

Result<HostTensor> Module::readProbe(std::string_view entryName,
                                     std::string_view probeName) {
  settleDeferred(*impl_);
  Result<size_t> index = impl_->entryIndex(entryName);
  if (index.isError())
    return index.status();
  const EntryDesc &entry = impl_->desc.entries[index.value()];
  const TensorSlotDesc *probe = nullptr;
  for (const TensorSlotDesc &p : entry.probes)
    if (p.name == probeName)
      probe = &p;
  if (!probe)
    return Status::error(
        "entry '" + entry.name + "' has no probe '" + std::string(probeName) +
        "'" + suggestNameIn(probeName, entry.probes) + "; its probes: " +
        nameList(entry.probes, [](const TensorSlotDesc &p) { return p.name; }));
  if (impl_->lastReplayed != static_cast<int64_t>(index.value()))
    return Status::error(
        "probe '" + probe->name + "' of entry '" + entry.name +
        "' is not available: " +
        (impl_->lastReplayed < 0
             ? std::string("no replay has run yet")
             : "the last replay was of entry '" +
                   impl_->desc.entries[impl_->lastReplayed].name + "'") +
        "; replay entry '" + entry.name + "' first");
  Result<std::vector<uint8_t>> bytes = impl_->download(
      probe->buffer, probe->offset, probe->size, "probe '" + probe->name + "'");
  if (bytes.isError())
    return bytes.status();
  HostTensor t;
  t.dtype = probe->dtype;
  t.shape = probe->shape;
  t.data = std::move(bytes).value();
  return t;
}

} // namespace capture::rt
