//===- pipeline.h - One compute pipeline per kernel -------------*- C++ -*-===//

#ifndef CAPTURE_RT_PIPELINE_H
#define CAPTURE_RT_PIPELINE_H

#include "device_impl.h"

namespace capture::rt {

/// The descriptor type of a binding of kind `kind` (verified).
VkDescriptorType descriptorTypeOf(BindingKind kind);

/// A kernel's shader module, descriptor set layout (set 0: numBindings
/// storage buffers or storage texel buffers, as KernelDesc::bindingKinds
/// says), pipeline layout and compute pipeline. Move-only.
class KernelPipeline {
public:
  /// Creates the Vulkan objects of `kernel` (already verified).
  static Result<KernelPipeline> create(Device::Impl &device,
                                       const KernelDesc &kernel);

  KernelPipeline() = default;
  KernelPipeline(KernelPipeline &&other) noexcept;
  KernelPipeline &operator=(KernelPipeline &&other) noexcept;
  KernelPipeline(const KernelPipeline &) = delete;
  KernelPipeline &operator=(const KernelPipeline &) = delete;
  ~KernelPipeline();

  /// The compute pipeline.
  VkPipeline pipeline() const { return pipeline_; }
  /// Its layout.
  VkPipelineLayout layout() const { return layout_; }
  /// Layout of descriptor set 0.
  VkDescriptorSetLayout setLayout() const { return setLayout_; }

private:
  void reset();

  /// Owning device.
  VkDevice device = VK_NULL_HANDLE;
  /// The SPIR-V module.
  VkShaderModule shader = VK_NULL_HANDLE;
  /// Set 0 layout.
  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  /// Pipeline layout.
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  /// Compute pipeline.
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

} // namespace capture::rt

#endif // CAPTURE_RT_PIPELINE_H
