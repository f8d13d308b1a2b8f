//===- module.cpp - Loading a module; parameters and probes ---------------===//

#include "module_impl.h"

#include "capture/rt/capmod.h"

#include <cstring>

namespace capture::rt {
namespace {

/// "'a', 'b'" or "none".
template <typename T, typename F>
std::string nameList(const std::vector<T> &items, F name) {
  std::string s;
  for (const T &item : items)
    s += (s.empty() ? "'" : ", '") + name(item) + "'";
  return s.empty() ? "none" : s;
}

Status checkTensor(const std::string &what, const std::vector<int64_t> &shape,
                   DType dtype, const HostTensor &got) {
  if (got.shape != shape || got.dtype != dtype)
    return Status::error(what + " has shape " + formatType(shape, dtype) +
                         ", got " + formatType(got.shape, got.dtype));
  std::optional<uint64_t> count = elementCount(shape);
  if (!count || got.data.size() != *count * dtypeSize(dtype))
    return Status::error(
        what + " of shape " + formatType(shape, dtype) + " needs " +
        std::to_string(count.value_or(0) * dtypeSize(dtype)) +
        " bytes of data, got " + std::to_string(got.data.size()));
  return Status::ok();
}

/// Allocates everything, uploads weights and constants, records entries.
Status build(Module::Impl &m) {
  Device::Impl &dev = m.dev;
  for (size_t i = 0; i < m.desc.buffers.size(); ++i) {
    const BufferDesc &b = m.desc.buffers[i];
    Result<Buffer> buffer = Buffer::create(
        dev, b.size, Buffer::Usage::Device,
        "buffer " + std::to_string(i) + " (" + bufferKindName(b.kind) + ")");
    if (buffer.isError())
      return buffer.status();
    m.buffers.push_back(std::move(buffer).value());
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
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkCreateFence(dev.device, &fenceInfo, nullptr, &m.fence),
              "vkCreateFence", "the module"));

  std::vector<VkCommandBuffer> cmds(m.desc.entries.size() + 1);
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = m.commandPool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = static_cast<uint32_t>(cmds.size());
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkAllocateCommandBuffers(dev.device, &alloc, cmds.data()),
              "vkAllocateCommandBuffers", "the module"));
  m.utilityCmd = cmds.back();

  for (size_t i = 0; i < m.desc.entries.size(); ++i) {
    const EntryDesc &e = m.desc.entries[i];
    EntryState state;
    state.index = i;
    state.cmd = cmds[i];
    if (e.train)
      state.train = makeTrainRuntime(e);
    if (!e.inputs.empty()) {
      Result<Buffer> in = Buffer::create(
          dev, m.desc.buffers[e.inputBuffer].size, Buffer::Usage::Upload,
          "input staging of entry '" + e.name + "'");
      if (in.isError())
        return in.status();
      state.stagingIn = std::move(in).value();
      std::memset(state.stagingIn.mapped(), 0, state.stagingIn.size());
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

  if (m.desc.weightsBuffer >= 0) {
    // One upload of the whole buffer: absent initial values and the gaps
    // between weights become zeros.
    uint32_t wb = static_cast<uint32_t>(m.desc.weightsBuffer);
    std::vector<uint8_t> image(m.desc.buffers[wb].size, 0);
    for (const WeightDesc &w : m.desc.weights)
      if (w.init && w.size)
        std::memcpy(image.data() + w.offset, w.init->data(), w.size);
    CAPTURE_RT_RETURN_IF_ERROR(
        m.upload(wb, 0, image.data(), image.size(), "initial weights"));
  }
  if (m.desc.constantsBuffer >= 0)
    CAPTURE_RT_RETURN_IF_ERROR(m.upload(
        static_cast<uint32_t>(m.desc.constantsBuffer), 0,
        m.desc.constants->data(), m.desc.constants->size(), "constants"));
  // Moments start at zero as torch.optim.AdamW's do; device memory starts
  // undefined.
  std::vector<uint32_t> optimizer;
  for (size_t i = 0; i < m.desc.buffers.size(); ++i)
    if (m.desc.buffers[i].kind == BufferKind::Optimizer)
      optimizer.push_back(static_cast<uint32_t>(i));
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
  // Every submit is waited for, but a failed wait can leave work pending.
  if (fence)
    vkWaitForFences(dev.device, 1, &fence, VK_TRUE, UINT64_MAX);
  for (EntryState &e : entries)
    if (e.queries)
      vkDestroyQueryPool(dev.device, e.queries, nullptr);
  if (descriptorPool)
    vkDestroyDescriptorPool(dev.device, descriptorPool, nullptr);
  if (commandPool)
    vkDestroyCommandPool(dev.device, commandPool, nullptr);
  if (fence)
    vkDestroyFence(dev.device, fence, nullptr);
  entries.clear();
  pipelines.clear();
  buffers.clear();
}

Result<size_t> Module::Impl::entryIndex(std::string_view name) const {
  for (size_t i = 0; i < desc.entries.size(); ++i)
    if (desc.entries[i].name == name)
      return i;
  return Status::error(
      "unknown entry '" + std::string(name) + "'; the module has entries: " +
      nameList(desc.entries, [](const EntryDesc &e) { return e.name; }));
}

Status Module::Impl::upload(uint32_t buffer, uint64_t offset,
                            const uint8_t *data, uint64_t size,
                            const std::string &what) {
  if (size == 0)
    return Status::ok();
  Result<Buffer> staging =
      Buffer::create(dev, size, Buffer::Usage::Upload, "staging of " + what);
  if (staging.isError())
    return staging.status();
  std::memcpy(staging->mapped(), data, size);
  CAPTURE_RT_RETURN_IF_ERROR(staging->flush());
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  CAPTURE_RT_RETURN_IF_ERROR(vkCheck(vkBeginCommandBuffer(utilityCmd, &begin),
                                     "vkBeginCommandBuffer", what));
  recordUtilityCopy(utilityCmd, staging->handle(), 0, buffers[buffer].handle(),
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
  Result<Buffer> staging =
      Buffer::create(dev, size, Buffer::Usage::Readback, "staging of " + what);
  if (staging.isError())
    return staging.status();
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  CAPTURE_RT_RETURN_IF_ERROR(vkCheck(vkBeginCommandBuffer(utilityCmd, &begin),
                                     "vkBeginCommandBuffer", what));
  recordUtilityCopy(utilityCmd, buffers[buffer].handle(), offset,
                    staging->handle(), 0, size);
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkEndCommandBuffer(utilityCmd), "vkEndCommandBuffer", what));
  CAPTURE_RT_RETURN_IF_ERROR(
      dev.submitAndWait(utilityCmd, fence, "read-back of " + what));
  CAPTURE_RT_RETURN_IF_ERROR(staging->invalidate());
  return std::vector<uint8_t>(staging->mapped(), staging->mapped() + size);
}

Status Module::Impl::zeroFill(const std::vector<uint32_t> &indices,
                              const std::string &what) {
  std::vector<VkBuffer> handles;
  for (uint32_t i : indices)
    handles.push_back(buffers[i].handle());
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  CAPTURE_RT_RETURN_IF_ERROR(vkCheck(vkBeginCommandBuffer(utilityCmd, &begin),
                                     "vkBeginCommandBuffer", what));
  recordUtilityFill(utilityCmd, handles);
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkEndCommandBuffer(utilityCmd), "vkEndCommandBuffer", what));
  return dev.submitAndWait(utilityCmd, fence, "zero fill of " + what);
}

Module::Module(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Module::~Module() = default;

Result<std::unique_ptr<Module>> Module::loadFile(std::shared_ptr<Device> device,
                                                 const std::string &path) {
  Result<ModuleDesc> desc = readCapmodFile(path);
  if (desc.isError())
    return desc.status();
  return load(std::move(device), std::move(desc).value());
}

Result<std::unique_ptr<Module>>
Module::loadBytes(std::shared_ptr<Device> device, const uint8_t *data,
                  size_t size) {
  Result<ModuleDesc> desc = readCapmod(data, size);
  if (desc.isError())
    return desc.status();
  return load(std::move(device), std::move(desc).value());
}

Result<std::unique_ptr<Module>> Module::load(std::shared_ptr<Device> device,
                                             ModuleDesc desc) {
  if (!device)
    return Status::error("Module::load: no device");
  // Every bound is checked before the first Vulkan object exists.
  CAPTURE_RT_RETURN_IF_ERROR(verifyModuleDesc(desc));
  CAPTURE_RT_RETURN_IF_ERROR(verifyForDevice(desc, device->limits()));
  auto impl = std::make_unique<Impl>(std::move(device), std::move(desc));
  CAPTURE_RT_RETURN_IF_ERROR(build(*impl));
  return std::unique_ptr<Module>(new Module(std::move(impl)));
}

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

static Result<const WeightDesc *> findWeight(const ModuleDesc &desc,
                                             std::string_view name) {
  for (const WeightDesc &w : desc.weights)
    if (w.name == name)
      return &w;
  return Status::error(
      "unknown parameter '" + std::string(name) + "'; the module's weights: " +
      nameList(desc.weights, [](const WeightDesc &w) { return w.name; }));
}

Status Module::setParam(std::string_view name, const HostTensor &value) {
  Result<const WeightDesc *> w = findWeight(impl_->desc, name);
  if (w.isError())
    return w.status();
  const WeightDesc &weight = *w.value();
  CAPTURE_RT_RETURN_IF_ERROR(checkTensor("parameter '" + weight.name + "'",
                                         weight.shape, weight.dtype, value));
  return impl_->upload(static_cast<uint32_t>(impl_->desc.weightsBuffer),
                       weight.offset, value.data.data(), value.data.size(),
                       "parameter '" + weight.name + "'");
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
        "'; its probes: " +
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
