//===- pipeline.cpp - One compute pipeline per kernel ---------------------===//

#include "pipeline.h"

#include <utility>

namespace capture::rt {

VkDescriptorType descriptorTypeOf(BindingKind kind) {
  return kind == BindingKind::TexelBufferRgba32f
             ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER
             : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

Result<KernelPipeline> KernelPipeline::create(Device::Impl &device,
                                              const KernelDesc &kernel) {
  KernelPipeline p;
  p.device = device.device;
  std::string what = "kernel '" + kernel.name + "'";

  VkShaderModuleCreateInfo shaderInfo{};
  shaderInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  shaderInfo.codeSize = kernel.spirv.size() * sizeof(uint32_t);
  shaderInfo.pCode = kernel.spirv.data();
  // On any failure below, `p`'s destructor frees what was made so far.
  CAPTURE_RT_RETURN_IF_ERROR(vkCheckHandle(
      vkCreateShaderModule(p.device, &shaderInfo, nullptr, &p.shader), p.shader,
      "vkCreateShaderModule", what));

  std::vector<VkDescriptorSetLayoutBinding> bindings(kernel.numBindings);
  for (uint32_t i = 0; i < kernel.numBindings; ++i) {
    bindings[i] = {};
    bindings[i].binding = i;
    bindings[i].descriptorType = descriptorTypeOf(bindingKindOf(kernel, i));
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{};
  setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  setInfo.bindingCount = kernel.numBindings;
  setInfo.pBindings = bindings.data();
  CAPTURE_RT_RETURN_IF_ERROR(vkCheckHandle(
      vkCreateDescriptorSetLayout(p.device, &setInfo, nullptr, &p.setLayout_),
      p.setLayout_, "vkCreateDescriptorSetLayout", what));

  VkPipelineLayoutCreateInfo layoutInfo{};
  layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &p.setLayout_;
  CAPTURE_RT_RETURN_IF_ERROR(vkCheckHandle(
      vkCreatePipelineLayout(p.device, &layoutInfo, nullptr, &p.layout_),
      p.layout_, "vkCreatePipelineLayout", what));

  VkComputePipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = p.shader;
  info.stage.pName = kernel.entryPoint.c_str();
  info.layout = p.layout_;
  CAPTURE_RT_RETURN_IF_ERROR(
      vkCheckHandle(vkCreateComputePipelines(p.device, VK_NULL_HANDLE, 1, &info,
                                             nullptr, &p.pipeline_),
                    p.pipeline_, "vkCreateComputePipelines", what));
  return p;
}

KernelPipeline::KernelPipeline(KernelPipeline &&other) noexcept {
  *this = std::move(other);
}

KernelPipeline &KernelPipeline::operator=(KernelPipeline &&other) noexcept {
  if (this != &other) {
    reset();
    device = std::exchange(other.device, VK_NULL_HANDLE);
    shader = std::exchange(other.shader, VK_NULL_HANDLE);
    setLayout_ = std::exchange(other.setLayout_, VK_NULL_HANDLE);
    layout_ = std::exchange(other.layout_, VK_NULL_HANDLE);
    pipeline_ = std::exchange(other.pipeline_, VK_NULL_HANDLE);
  }
  return *this;
}

KernelPipeline::~KernelPipeline() { reset(); }

void KernelPipeline::reset() {
  if (pipeline_)
    vkDestroyPipeline(device, pipeline_, nullptr);
  if (layout_)
    vkDestroyPipelineLayout(device, layout_, nullptr);
  if (setLayout_)
    vkDestroyDescriptorSetLayout(device, setLayout_, nullptr);
  if (shader)
    vkDestroyShaderModule(device, shader, nullptr);
  pipeline_ = VK_NULL_HANDLE;
  layout_ = VK_NULL_HANDLE;
  setLayout_ = VK_NULL_HANDLE;
  shader = VK_NULL_HANDLE;
}

} // namespace capture::rt
