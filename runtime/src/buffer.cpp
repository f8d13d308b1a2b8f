//===- buffer.cpp - Vulkan buffers with their memory ----------------------===//

#include "buffer.h"

#include <algorithm>
#include <utility>

namespace capture::rt {
namespace {

/// The first memory type allowed by `typeBits` that has all `want` flags,
/// else the first that has all `need` flags.
std::optional<uint32_t>
pickMemoryType(const VkPhysicalDeviceMemoryProperties &m, uint32_t typeBits,
               VkMemoryPropertyFlags want, VkMemoryPropertyFlags need) {
  for (VkMemoryPropertyFlags flags : {want, need})
    for (uint32_t i = 0; i < m.memoryTypeCount; ++i)
      if ((typeBits & (1u << i)) &&
          (m.memoryTypes[i].propertyFlags & flags) == flags)
        return i;
  return std::nullopt;
}

const char *usageName(Buffer::Usage usage) {
  switch (usage) {
  case Buffer::Usage::Device:
    return "device-local";
  case Buffer::Usage::Upload:
    return "host-visible, upload";
  case Buffer::Usage::Readback:
    return "host-visible, read-back";
  }
  return "?";
}

} // namespace

Result<Buffer> Buffer::create(Device::Impl &device, uint64_t size, Usage usage,
                              const std::string &name) {
  std::string what =
      name + " (" + std::to_string(size) + " bytes, " + usageName(usage) + ")";
  // A buffer can only live in one allocation; asking for more is a
  // validation error (above a heap) or an unreliable driver answer (above
  // maxMemoryAllocationSize), so it is refused here with the numbers.
  uint64_t largest = device.limits.maxAllocationSize;
  auto tooLarge = [&](uint64_t bytes) {
    return Status::error(
        "vkAllocateMemory failed for " + what +
            ": refused before the call: " + std::to_string(bytes) +
            " bytes is more than device '" + device.info.name +
            "' allocates at once (" + std::to_string(largest) +
            " bytes: the smaller of its largest memory heap and "
            "maxMemoryAllocationSize), treated as " +
            vkResultName(VK_ERROR_OUT_OF_DEVICE_MEMORY),
        StatusCode::OutOfMemory);
  };
  if (size == 0)
    return Status::error("vkCreateBuffer failed for " + what +
                         ": refused before the call: a buffer needs at least "
                         "1 byte");
  if (size > largest)
    return tooLarge(size);

  Buffer b;
  b.owner = &device;
  b.device = device.device;
  b.bytes = size;
  b.name = name;

  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkMemoryPropertyFlags want = 0, need = 0;
  switch (usage) {
  case Usage::Device:
    // Texel usage on every device buffer: any of them (a Weights buffer
    // shared with another module too) may be bound through a buffer view.
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                 VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT |
                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    break;
  case Usage::Upload:
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    break;
  case Usage::Readback:
    info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
           VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    break;
  }
  // On any failure below, `b`'s destructor frees what was made so far.
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheckHandle(vkCreateBuffer(b.device, &info, nullptr, &b.buffer),
                    b.buffer, "vkCreateBuffer", what));

  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(b.device, b.buffer, &req);
  std::optional<uint32_t> type =
      pickMemoryType(device.memory, req.memoryTypeBits, want, need);
  if (!type)
    return Status::error("no suitable memory type for " + what +
                         " on device '" + device.info.name + "'");
  uint32_t heap = device.memory.memoryTypes[*type].heapIndex;
  largest = std::min<uint64_t>(largest, device.memory.memoryHeaps[heap].size);
  if (req.size > largest)
    return tooLarge(req.size);
  CAPTURE_RT_RETURN_IF_ERROR(device.reserveMemory(req.size, what));
  b.accounted = req.size;
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *type;
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheckHandle(vkAllocateMemory(b.device, &alloc, nullptr, &b.memory),
                    b.memory, "vkAllocateMemory", what));
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheck(vkBindBufferMemory(b.device, b.buffer, b.memory, 0),
              "vkBindBufferMemory", what));
  if (usage != Usage::Device) {
    void *p = nullptr;
    CAPTURE_RT_RETURN_IF_ERROR(
        vkCheck(vkMapMemory(b.device, b.memory, 0, VK_WHOLE_SIZE, 0, &p),
                "vkMapMemory", what));
    b.map = static_cast<uint8_t *>(p);
    b.nonCoherent = !(device.memory.memoryTypes[*type].propertyFlags &
                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  }
  return b;
}

Buffer::Buffer(Buffer &&other) noexcept { *this = std::move(other); }

Buffer &Buffer::operator=(Buffer &&other) noexcept {
  if (this != &other) {
    reset();
    owner = std::exchange(other.owner, nullptr);
    device = std::exchange(other.device, VK_NULL_HANDLE);
    buffer = std::exchange(other.buffer, VK_NULL_HANDLE);
    memory = std::exchange(other.memory, VK_NULL_HANDLE);
    accounted = std::exchange(other.accounted, 0);
    bytes = std::exchange(other.bytes, 0);
    map = std::exchange(other.map, nullptr);
    nonCoherent = std::exchange(other.nonCoherent, false);
    name = std::move(other.name);
  }
  return *this;
}

Buffer::~Buffer() { reset(); }

void Buffer::reset() {
  if (buffer)
    vkDestroyBuffer(device, buffer, nullptr);
  if (memory)
    vkFreeMemory(device, memory, nullptr); // Also unmaps.
  if (owner && accounted)
    owner->releaseMemory(accounted);
  buffer = VK_NULL_HANDLE;
  memory = VK_NULL_HANDLE;
  accounted = 0;
  map = nullptr;
}

Status Buffer::flush() const {
  if (!nonCoherent)
    return Status::ok();
  VkMappedMemoryRange range{};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = memory;
  range.size = VK_WHOLE_SIZE;
  return vkCheck(vkFlushMappedMemoryRanges(device, 1, &range),
                 "vkFlushMappedMemoryRanges", name);
}

Status Buffer::invalidate() const {
  if (!nonCoherent)
    return Status::ok();
  VkMappedMemoryRange range{};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = memory;
  range.size = VK_WHOLE_SIZE;
  return vkCheck(vkInvalidateMappedMemoryRanges(device, 1, &range),
                 "vkInvalidateMappedMemoryRanges", name);
}

} // namespace capture::rt
