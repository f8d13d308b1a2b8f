//===- buffer.h - Vulkan buffers with their memory --------------*- C++ -*-===//

#ifndef CAPTURE_RT_BUFFER_H
#define CAPTURE_RT_BUFFER_H

#include "device_impl.h"

namespace capture::rt {

/// A VkBuffer with its own VkDeviceMemory (modules have few buffers, so one
/// allocation each is simpler than sub-allocation and far below
/// maxMemoryAllocationCount). Move-only; destroys both on destruction.
class Buffer {
public:
  /// Where the buffer lives and how it is used.
  enum class Usage {
    /// Storage buffer used by kernels and copies; device-local when the
    /// device has such memory.
    Device,
    /// Host-visible staging source of uploads, persistently mapped.
    Upload,
    /// Host-visible staging target of downloads, persistently mapped,
    /// host-cached when possible.
    Readback,
  };

  /// Creates a buffer of `size` bytes (> 0). `what` names it in messages,
  /// which add its size and usage ("buffer 2 (Weights) (69392 bytes,
  /// device-local)"). A size above what the device allows in one
  /// allocation, or one that would pass DeviceOptions::memoryLimit, fails
  /// before the driver is asked. On failure nothing stays allocated.
  static Result<Buffer> create(Device::Impl &device, uint64_t size, Usage usage,
                               const std::string &what);

  Buffer() = default;
  Buffer(Buffer &&other) noexcept;
  Buffer &operator=(Buffer &&other) noexcept;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer();

  /// The buffer handle.
  VkBuffer handle() const { return buffer; }
  /// Size in bytes.
  uint64_t size() const { return bytes; }
  /// Mapped host pointer for Upload/Readback buffers, else null.
  uint8_t *mapped() const { return map; }

  /// Makes host writes visible to the device (no-op for coherent memory);
  /// call after writing through mapped() and before submitting.
  Status flush() const;
  /// Makes device writes visible to the host (no-op for coherent memory);
  /// call after the fence wait and before reading through mapped().
  Status invalidate() const;

private:
  /// Destroys what is held (null handles are skipped) and gives back the
  /// accounted memory; the Buffer is then empty.
  void reset();

  /// Owning device's handles: the VkDevice and the memory accounting.
  Device::Impl *owner = nullptr;
  /// Owning device.
  VkDevice device = VK_NULL_HANDLE;
  /// The buffer.
  VkBuffer buffer = VK_NULL_HANDLE;
  /// Its memory.
  VkDeviceMemory memory = VK_NULL_HANDLE;
  /// Bytes accounted in owner->memoryInUse (the allocation's size).
  uint64_t accounted = 0;
  /// Size in bytes.
  uint64_t bytes = 0;
  /// Host mapping, when host-visible and used from the host.
  uint8_t *map = nullptr;
  /// Whether the memory needs explicit flush/invalidate.
  bool nonCoherent = false;
  /// Name for messages.
  std::string name;
};

} // namespace capture::rt

#endif // CAPTURE_RT_BUFFER_H
