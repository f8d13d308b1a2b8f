//===- module_impl.h - Vulkan objects behind capture::rt::Module -*- C++
//-*-===//

#ifndef CAPTURE_RT_MODULE_IMPL_H
#define CAPTURE_RT_MODULE_IMPL_H

#include "capture/rt/module.h"

#include "buffer.h"
#include "device_impl.h"
#include "pipeline.h"

namespace capture::rt {

/// The recorded state of one entry.
struct EntryState {
  /// Index into ModuleDesc::entries.
  size_t index = 0;
  /// The command buffer recorded once at load and submitted by each replay.
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  /// Mapped source of the input copy (null handle without inputs).
  Buffer stagingIn;
  /// Mapped target of the output copy (null handle without outputs).
  Buffer stagingOut;
  /// One descriptor set per command (null for barriers and for kernels
  /// without bindings); freed with the module's descriptor pool.
  std::vector<VkDescriptorSet> sets;
};

struct Module::Impl {
  Impl(std::shared_ptr<Device> device, ModuleDesc desc);
  Impl(const Impl &) = delete;
  Impl &operator=(const Impl &) = delete;
  /// Destroys the pools and the fence; the members destroy the rest.
  ~Impl();

  /// Index of entry `name`, or an error listing the entries.
  Result<size_t> entryIndex(std::string_view name) const;

  /// Copies `size` bytes from `data` to [offset, offset + size) of device
  /// buffer `buffer`, through a temporary staging buffer and one submit.
  Status upload(uint32_t buffer, uint64_t offset, const uint8_t *data,
                uint64_t size, const std::string &what);

  /// Copies [offset, offset + size) of device buffer `buffer` to the host.
  Result<std::vector<uint8_t>> download(uint32_t buffer, uint64_t offset,
                                        uint64_t size, const std::string &what);

  /// Keeps the device (and so the VkDevice) alive as long as the module;
  /// declared first so that it is destroyed last.
  std::shared_ptr<Device> device;
  /// The device's Vulkan handles.
  Device::Impl &dev;
  /// The verified module contents.
  ModuleDesc desc;
  /// One device buffer per ModuleDesc::buffers entry.
  std::vector<Buffer> buffers;
  /// One pipeline per kernel.
  std::vector<KernelPipeline> pipelines;
  /// Pool of every entry's descriptor sets.
  VkDescriptorPool descriptorPool = VK_NULL_HANDLE;
  /// Pool of every command buffer of the module.
  VkCommandPool commandPool = VK_NULL_HANDLE;
  /// Command buffer for uploads and read-backs outside replays.
  VkCommandBuffer utilityCmd = VK_NULL_HANDLE;
  /// Signalled by every submit of this module.
  VkFence fence = VK_NULL_HANDLE;
  /// Per-entry recorded state, parallel to desc.entries.
  std::vector<EntryState> entries;
  /// Entry of the last successful replay, for probes; -1 before the first.
  int64_t lastReplayed = -1;
};

/// Creates the descriptor pool and every entry's descriptor sets, pointing
/// at the buffer ranges of each dispatch (recording.cpp).
Status createDescriptorSets(Module::Impl &m);

/// Records entry `e`'s command buffer: input copy, the schedule, output
/// copy, with the barriers that order them and previous submissions
/// (recording.cpp).
Status recordEntry(Module::Impl &m, EntryState &e);

/// Records into `cmd` a copy between buffers framed by barriers against all
/// earlier and later device work and, for read-backs, a host barrier
/// (recording.cpp).
void recordUtilityCopy(VkCommandBuffer cmd, VkBuffer src, uint64_t srcOffset,
                       VkBuffer dst, uint64_t dstOffset, uint64_t size);

} // namespace capture::rt

#endif // CAPTURE_RT_MODULE_IMPL_H
