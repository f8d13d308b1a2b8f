//===- recording.cpp - Descriptor sets and recorded command buffers -------===//
//
// Each entry's command buffer is recorded once at load. Its barriers make
// every replay self-contained: the first one orders this replay after all
// earlier work on the queue (the previous replay's reads of the input
// buffer, its writes of scratch, parameter uploads), so the synchronization
// validation layer sees no hazard between submissions either.
//
//===----------------------------------------------------------------------===//

#include "module_impl.h"

#include "capture/rt/replay_stream.h"

namespace capture::rt {
namespace {

constexpr VkPipelineStageFlags kDeviceStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kDeviceWrites =
    VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr VkAccessFlags kDeviceAccesses =
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;

/// A global memory barrier: buffers only, so no image layouts to track.
void barrier(VkCommandBuffer cmd, VkPipelineStageFlags srcStages,
             VkAccessFlags srcAccess, VkPipelineStageFlags dstStages,
             VkAccessFlags dstAccess) {
  VkMemoryBarrier b{};
  b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  vkCmdPipelineBarrier(cmd, srcStages, dstStages, 0, 1, &b, 0, nullptr, 0,
                       nullptr);
}

void copy(VkCommandBuffer cmd, VkBuffer src, uint64_t srcOffset, VkBuffer dst,
          uint64_t dstOffset, uint64_t size) {
  VkBufferCopy region{};
  region.srcOffset = srcOffset;
  region.dstOffset = dstOffset;
  region.size = size;
  vkCmdCopyBuffer(cmd, src, dst, 1, &region);
}

} // namespace

Status createDescriptorSets(Module::Impl &m) {
  uint32_t sets = 0, storage = 0, texel = 0;
  for (const EntryDesc &e : m.desc.entries)
    for (const CommandDesc &c : e.commands) {
      if (c.kind != CommandDesc::Kind::Dispatch || c.dispatch.bindings.empty())
        continue;
      ++sets;
      const KernelDesc &k = m.desc.kernels[c.dispatch.kernel];
      for (size_t b = 0; b < c.dispatch.bindings.size(); ++b)
        ++(bindingKindOf(k, b) == BindingKind::TexelBufferRgba32f ? texel
                                                                  : storage);
    }
  for (EntryState &e : m.entries)
    e.sets.assign(m.desc.entries[e.index].commands.size(), VK_NULL_HANDLE);
  if (sets == 0)
    return Status::ok();

  // A pool size of 0 descriptors is invalid: list only the types used.
  std::vector<VkDescriptorPoolSize> sizes;
  if (storage)
    sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, storage});
  if (texel)
    sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, texel});
  VkDescriptorPoolCreateInfo poolInfo{};
  poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  poolInfo.maxSets = sets;
  poolInfo.poolSizeCount = static_cast<uint32_t>(sizes.size());
  poolInfo.pPoolSizes = sizes.data();
  CAPTURE_RT_RETURN_IF_ERROR(vkCheck(
      vkCreateDescriptorPool(m.dev.device, &poolInfo, nullptr,
                             &m.descriptorPool),
      "vkCreateDescriptorPool", std::to_string(sets) + " descriptor sets"));
  m.bufferViews.reserve(texel);

  for (EntryState &state : m.entries) {
    const EntryDesc &entry = m.desc.entries[state.index];
    for (size_t i = 0; i < entry.commands.size(); ++i) {
      const CommandDesc &c = entry.commands[i];
      if (c.kind != CommandDesc::Kind::Dispatch || c.dispatch.bindings.empty())
        continue;
      const DispatchDesc &d = c.dispatch;
      const KernelDesc &kernel = m.desc.kernels[d.kernel];
      std::string what = "dispatch " + std::to_string(i) + " of entry '" +
                         entry.name + "' (kernel '" + kernel.name + "')";
      VkDescriptorSetLayout layout = m.pipelines[d.kernel].setLayout();
      VkDescriptorSetAllocateInfo alloc{};
      alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
      alloc.descriptorPool = m.descriptorPool;
      alloc.descriptorSetCount = 1;
      alloc.pSetLayouts = &layout;
      CAPTURE_RT_RETURN_IF_ERROR(vkCheck(
          vkAllocateDescriptorSets(m.dev.device, &alloc, &state.sets[i]),
          "vkAllocateDescriptorSets", what));
      std::vector<VkDescriptorBufferInfo> infos(d.bindings.size());
      std::vector<VkBufferView> views(d.bindings.size(), VK_NULL_HANDLE);
      std::vector<VkWriteDescriptorSet> writes(d.bindings.size());
      for (size_t b = 0; b < d.bindings.size(); ++b) {
        const BufferRangeDesc &r = d.bindings[b];
        BindingKind kind = bindingKindOf(kernel, b);
        writes[b] = {};
        writes[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        writes[b].dstSet = state.sets[i];
        writes[b].dstBinding = static_cast<uint32_t>(b);
        writes[b].descriptorCount = 1;
        writes[b].descriptorType = descriptorTypeOf(kind);
        if (kind == BindingKind::StorageBuffer) {
          infos[b] = {m.buffers[r.buffer]->handle(), r.offset, r.size};
          writes[b].pBufferInfo = &infos[b];
          continue;
        }
        // Offset, size and the format's support were checked at load
        // (verifyModuleDesc, verifyForDevice).
        VkBufferViewCreateInfo viewInfo{};
        viewInfo.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO;
        viewInfo.buffer = m.buffers[r.buffer]->handle();
        viewInfo.format = VK_FORMAT_R32G32B32A32_SFLOAT;
        viewInfo.offset = r.offset;
        viewInfo.range = r.size;
        CAPTURE_RT_RETURN_IF_ERROR(vkCheckHandle(
            vkCreateBufferView(m.dev.device, &viewInfo, nullptr, &views[b]),
            views[b], "vkCreateBufferView",
            "binding " + std::to_string(b) + " of " + what));
        // Owned by the module from here, so that ~Impl frees it also when
        // a later step of the load fails.
        m.bufferViews.push_back(views[b]);
        writes[b].pTexelBufferView = &views[b];
      }
      vkUpdateDescriptorSets(m.dev.device, static_cast<uint32_t>(writes.size()),
                             writes.data(), 0, nullptr);
    }
  }
  return Status::ok();
}

void recordSubmissionStart(VkCommandBuffer cmd) {
  // Order against everything submitted before (previous replays, parameter
  // uploads, probe reads): first scope = all earlier commands on the queue.
  barrier(cmd, kDeviceStages, kDeviceWrites, kDeviceStages, kDeviceAccesses);
}

void recordCopyIn(const Module::Impl &m, const EntryState &state,
                  VkCommandBuffer cmd) {
  const EntryDesc &entry = m.desc.entries[state.index];
  if (entry.inputs.empty())
    return;
  const Buffer &input = *m.buffers[entry.inputBuffer];
  copy(cmd, state.stagingIn.handle(), 0, input.handle(), 0, input.size());
  barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          kDeviceStages, kDeviceAccesses);
}

void recordDispatch(const Module::Impl &m, const EntryState &state,
                    VkCommandBuffer cmd, size_t command) {
  const DispatchDesc &d =
      m.desc.entries[state.index].commands[command].dispatch;
  const KernelPipeline &p = m.pipelines[d.kernel];
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline());
  if (state.sets[command])
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout(), 0,
                            1, &state.sets[command], 0, nullptr);
  vkCmdDispatch(cmd, d.groups[0], d.groups[1], d.groups[2]);
}

void recordCopyOut(const Module::Impl &m, const EntryState &state,
                   VkCommandBuffer cmd) {
  const EntryDesc &entry = m.desc.entries[state.index];
  if (entry.outputs.empty())
    return;
  const Buffer &output = *m.buffers[entry.outputBuffer];
  barrier(cmd, kDeviceStages, kDeviceWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_TRANSFER_READ_BIT);
  copy(cmd, output.handle(), 0, state.stagingOut.handle(), 0, output.size());
  // The fence wait alone does not make device writes visible to the host.
  barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

Status recordUpload(const Module::Impl &m, const EntryState &state,
                    VkCommandBuffer cmd,
                    const std::vector<VkBufferCopy> &regions) {
  const EntryDesc &entry = m.desc.entries[state.index];
  std::string what = "input upload of entry '" + entry.name + "'";
  // Reusable: the next replay with the same regions resubmits it.
  CAPTURE_RT_RETURN_IF_ERROR(beginReusableCommands(cmd, what));
  // The previous replay's reads of the Input buffer must end before it is
  // overwritten; the entry's own command buffer, next in the submission,
  // starts with the barrier that orders its reads after this copy.
  recordSubmissionStart(cmd);
  vkCmdCopyBuffer(cmd, state.stagingIn.handle(),
                  m.buffers[entry.inputBuffer]->handle(),
                  static_cast<uint32_t>(regions.size()), regions.data());
  return vkCheck(vkEndCommandBuffer(cmd), "vkEndCommandBuffer", what);
}

Status recordProbeCopies(const Module::Impl &m, const EntryState &state,
                         VkCommandBuffer cmd,
                         const std::vector<size_t> &probes) {
  const EntryDesc &entry = m.desc.entries[state.index];
  std::string what = "probe copies of entry '" + entry.name + "'";
  CAPTURE_RT_RETURN_IF_ERROR(beginOneTimeCommands(cmd, what));
  barrier(cmd, kDeviceStages, kDeviceWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_TRANSFER_READ_BIT);
  for (size_t p : probes) {
    const TensorSlotDesc &slot = entry.probes[p];
    if (slot.size)
      copy(cmd, m.buffers[slot.buffer]->handle(), slot.offset,
           state.probeStaging.handle(), state.probeOffsets[p], slot.size);
  }
  barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  return vkCheck(vkEndCommandBuffer(cmd), "vkEndCommandBuffer", what);
}

Status recordEntry(Module::Impl &m, EntryState &state, VkCommandBuffer cmd,
                   VkQueryPool queries) {
  const EntryDesc &entry = m.desc.entries[state.index];
  std::string what = "entry '" + entry.name + "'";
  // What is recorded is what is checked: the schedule between the copies.
  std::vector<StreamOp> stream = replayStream(m.desc, entry);
  CAPTURE_RT_RETURN_IF_ERROR(checkStreamHazards(m.desc, entry, stream));
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer", what));
  if (queries) {
    // Queries must be reset before each reuse; every replay rewrites all.
    vkCmdResetQueryPool(cmd, queries, 0, queryCount(dispatchCount(entry)));
    recordTimestamp(cmd, queries, kSubmissionStartQuery);
  }
  recordSubmissionStart(cmd);
  size_t dispatch = 0;
  for (size_t i = 0; i < stream.size(); ++i) {
    const StreamOp &op = stream[i];
    switch (op.kind) {
    case StreamOp::Kind::Upload:
      // In the upload command buffer (recordUpload), submitted first.
      break;
    case StreamOp::Kind::Barrier:
      if (i > 0 && stream[i - 1].kind == StreamOp::Kind::Upload)
        barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_WRITE_BIT, kDeviceStages, kDeviceAccesses);
      else if (i + 1 < stream.size() &&
               stream[i + 1].kind == StreamOp::Kind::Download)
        barrier(cmd, kDeviceStages, kDeviceWrites,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
      else
        barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      break;
    case StreamOp::Kind::Dispatch:
      if (queries)
        recordTimestamp(cmd, queries, dispatchStartQuery(dispatch));
      recordDispatch(m, state, cmd, op.command);
      if (queries)
        recordTimestamp(cmd, queries, dispatchEndQuery(dispatch));
      ++dispatch;
      break;
    case StreamOp::Kind::Download:
      copy(cmd, m.buffers[op.range.buffer]->handle(), op.range.offset,
           state.stagingOut.handle(), 0, op.range.size);
      // The fence wait alone does not make device writes visible to the
      // host.
      barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
              VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
      break;
    }
  }
  if (queries)
    recordTimestamp(cmd, queries, kSubmissionEndQuery);
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkEndCommandBuffer(cmd), "vkEndCommandBuffer", what));
  ++m.recordCount;
  return Status::ok();
}

void recordUtilityFill(const Module::Impl &m, VkCommandBuffer cmd,
                       const std::vector<FillRange> &ranges) {
  barrier(cmd, kDeviceStages, kDeviceWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT);
  for (const FillRange &r : ranges)
    vkCmdFillBuffer(cmd, m.buffers[r.buffer]->handle(), r.offset, r.size,
                    r.data);
  barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          kDeviceStages | VK_PIPELINE_STAGE_HOST_BIT,
          kDeviceAccesses | VK_ACCESS_HOST_READ_BIT);
}

void recordUtilityCopy(VkCommandBuffer cmd, VkBuffer src, uint64_t srcOffset,
                       VkBuffer dst, uint64_t dstOffset, uint64_t size) {
  recordUtilityCopyRegions(cmd, src, dst, {{srcOffset, dstOffset, size}});
}

void recordUtilityCopyRegions(VkCommandBuffer cmd, VkBuffer src, VkBuffer dst,
                              const std::vector<VkBufferCopy> &regions) {
  barrier(cmd, kDeviceStages, kDeviceWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  vkCmdCopyBuffer(cmd, src, dst, static_cast<uint32_t>(regions.size()),
                  regions.data());
  barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          kDeviceStages | VK_PIPELINE_STAGE_HOST_BIT,
          kDeviceAccesses | VK_ACCESS_HOST_READ_BIT);
}

} // namespace capture::rt
