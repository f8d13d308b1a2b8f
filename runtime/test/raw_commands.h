//===- raw_commands.h - A command buffer a test records by hand -*- C++ -*-===//
//
// Tests that reach past the runtime (a hazard for the validation layer to
// find, a submission held back by the host) record Vulkan commands
// themselves; this owns the pool and the one command buffer they need.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_TEST_RAW_COMMANDS_H
#define CAPTURE_RT_TEST_RAW_COMMANDS_H

#include "device_impl.h"

#include <gtest/gtest.h>

namespace capture::rt::test {

/// A command pool on `impl`'s queue family and one primary command buffer
/// from it, in the recording state; destroyed with the pool.
class RawCommands {
public:
  explicit RawCommands(Device::Impl &impl) : device_(impl.device) {
    VkCommandPoolCreateInfo poolInfo{};
    poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    poolInfo.queueFamilyIndex = impl.queueFamily;
    EXPECT_EQ(vkCreateCommandPool(device_, &poolInfo, nullptr, &pool_),
              VK_SUCCESS);
    VkCommandBufferAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    EXPECT_EQ(vkAllocateCommandBuffers(device_, &alloc, &cmd_), VK_SUCCESS);
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    EXPECT_EQ(vkBeginCommandBuffer(cmd_, &begin), VK_SUCCESS);
  }
  RawCommands(const RawCommands &) = delete;
  RawCommands &operator=(const RawCommands &) = delete;
  /// Destroys the pool; the caller has waited for any submission of it.
  ~RawCommands() { vkDestroyCommandPool(device_, pool_, nullptr); }

  /// The command buffer, recording until end().
  VkCommandBuffer cmd() const { return cmd_; }
  /// Ends recording.
  void end() { EXPECT_EQ(vkEndCommandBuffer(cmd_), VK_SUCCESS); }

private:
  /// The device the pool belongs to.
  VkDevice device_;
  /// The pool.
  VkCommandPool pool_ = VK_NULL_HANDLE;
  /// The command buffer.
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
};

} // namespace capture::rt::test

#endif // CAPTURE_RT_TEST_RAW_COMMANDS_H
