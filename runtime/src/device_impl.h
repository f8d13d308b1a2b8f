//===- device_impl.h - Vulkan handles behind Device -------------*- C++ -*-===//

#ifndef CAPTURE_RT_DEVICE_IMPL_H
#define CAPTURE_RT_DEVICE_IMPL_H

#include "capture/rt/device.h"
#include "capture/rt/module.h"

#include "vk_util.h"
#include "wait.h"

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <vector>

namespace capture::rt {

/// A run deferred with RunOptions::deferred, waiting for the device's next
/// submission of deferred runs (deferred.cpp).
struct DeferredItem {
  /// Its DeferredRun's ticket.
  uint64_t ticket = 0;
  /// The Module::Impl whose run it is (one waiting run per module).
  const void *owner = nullptr;
  /// Its command buffers, in submission order.
  std::vector<VkCommandBuffer> cmds;
  /// Names the run in messages ("entry 'train'").
  std::string what;
  /// After the submission, given its status (and the wait's): the run's
  /// outputs or error; host work only.
  std::function<Result<RunResult>(const Status &)> finish;
};

/// What a submitted deferred run left for its DeferredRun to take.
struct DeferredOutcome {
  /// Its error (a refused step, a failed submission); ok otherwise.
  Status status;
  /// Its outputs when status is ok.
  RunResult result;
};

struct Device::Impl {
  Impl() = default;
  Impl(const Impl &) = delete;
  Impl &operator=(const Impl &) = delete;
  /// Destroys the device, the messenger and the instance, in that order, so
  /// that leaks reported at vkDestroyDevice still reach the messenger.
  ~Impl();

  /// Submits `cmd` alone, signalling `fence`, and waits for it. `what`
  /// names the work in messages.
  Status submitAndWait(VkCommandBuffer cmd, VkFence fence,
                       const std::string &what);

  /// Resets `fence` and submits `cmd` alone, signalling it; the first half
  /// of submitAndWait, separate so that a profile can time both halves.
  Status submit(VkCommandBuffer cmd, VkFence fence, const std::string &what);

  /// Resets `fence` and submits `cmds` in order in one vkQueueSubmit,
  /// signalling it. Every submission of the runtime goes through here: it
  /// refuses at once on a lost device, marks the device lost on
  /// VK_ERROR_DEVICE_LOST, and after a failed submit still gets `fence`
  /// signalled, so that waiting for it before destruction cannot hang.
  Status submit(const std::vector<VkCommandBuffer> &cmds, VkFence fence,
                const std::string &what);

  /// Queues `item` for the next submission of deferred runs; returns its
  /// ticket (deferred.cpp).
  uint64_t deferRun(DeferredItem item);

  /// Keeps the result of a deferred run that ran at once (the host device)
  /// for its DeferredRun; returns its ticket (deferred.cpp).
  uint64_t ranAtOnce(Result<RunResult> result);

  /// Submits the deferred runs in one vkQueueSubmit, waits, and leaves
  /// each result for its ticket (Device::submitDeferred; deferred.cpp).
  Status submitDeferred();

  /// Whether `owner` (a Module::Impl) has a run waiting or in flight.
  bool hasDeferred(const void *owner) const;

  /// The command buffers of the waiting deferred runs, which the
  /// submission signalling `fence` takes along ahead of its own work (so
  /// that no work ever sees state from before a run deferred ahead of it):
  /// they move to `riding`, and `what` gains their names (deferred.cpp).
  std::vector<VkCommandBuffer> takeRiders(VkFence fence, std::string &what);

  /// After the submission signalling `fence` was waited for (or failed,
  /// `status`): the results of the runs it took along (deferred.cpp).
  void finishRiders(VkFence fence, const Status &status);

  /// submit without the deferred runs: the vkQueueSubmit itself.
  Status submitNow(const std::vector<VkCommandBuffer> &cmds, VkFence fence,
                   const std::string &what);

  /// Waits for `fence` as `waitSetting` says (wait.cpp); the second half of
  /// submitAndWait. `history`, when given, holds the recent waits of the
  /// same work: a spinning wait sleeps until shortly before the end they
  /// predict, and adds its own.
  Status waitFence(VkFence fence, const std::string &what,
                   WaitHistory *history = nullptr);

  /// wait, then the results of the deferred runs the submission signalling
  /// `fence` took along (deferred.cpp).
  Status wait(VkFence fence, const std::string &what,
              WaitHistory *history = nullptr);

  /// vkCheck for a call on this device; VK_ERROR_DEVICE_LOST also marks
  /// the device lost, so that later submissions fail at once.
  Status check(VkResult result, const char *call, const std::string &what);

  /// An error naming the first loss when the device is lost; else success.
  Status checkNotLost(const std::string &what) const;

  /// Before an object that submits with `fence` is destroyed: waits for its
  /// last submission, unless the device is lost (the work will never
  /// complete) or `fence` is null. Never fails: a destructor has nowhere to
  /// report, and destroying is allowed after a failed wait.
  void waitBeforeDestroy(VkFence fence);

  /// Accounts `bytes` of device memory for `what` against memoryLimit; an
  /// error that reads like a failed vkAllocateMemory when it would pass the
  /// limit. Undone by releaseMemory.
  Status reserveMemory(uint64_t bytes, const std::string &what);

  /// Gives back what reserveMemory accounted.
  void releaseMemory(uint64_t bytes);

  /// Records one validation message (called by the messenger callback).
  void addValidationMessage(const std::string &message);

  /// The instance.
  /// Threads of the host driver when this is the host device (selector
  /// "host": no Vulkan object, every handle null; modules run their host
  /// code), else 0.
  unsigned hostThreads = 0;
  VkInstance instance = VK_NULL_HANDLE;
  /// The debug-utils messenger when validation is on.
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  /// vkDestroyDebugUtilsMessengerEXT, loaded with the messenger.
  PFN_vkDestroyDebugUtilsMessengerEXT destroyMessenger = nullptr;
  /// The chosen physical device.
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  /// The logical device.
  VkDevice device = VK_NULL_HANDLE;
  /// The compute queue (also used for transfers).
  VkQueue queue = VK_NULL_HANDLE;
  /// Family of `queue`.
  uint32_t queueFamily = 0;
  /// Properties of `physical`.
  VkPhysicalDeviceProperties properties{};
  /// Memory types and heaps of `physical`.
  VkPhysicalDeviceMemoryProperties memory{};
  /// Public description of `physical`.
  DeviceInfo info;
  /// Why this device was chosen (Device::choice).
  std::string choice;
  /// Limits modules are checked against.
  DeviceLimits limits;
  /// The llvmpipe thread count the instance was created with.
  CpuThreadsSetting cpuThreads;
  /// How `wait` waits.
  WaitSetting waitSetting;
  /// The times of a spinning wait.
  SpinTimes spinTimes;
  /// How waits ended so far (Device::waitCounts).
  AtomicWaitCounts waitCounts;
  /// Whether validation is on.
  bool validation = false;
  /// Whether to print validation messages to stderr.
  bool printMessages = true;
  /// User callback for validation messages.
  std::function<void(const std::string &)> onMessage;
  /// Validation warnings + errors so far.
  std::atomic<uint64_t> messageCount{0};
  /// Guards `messages` (layers may call back from several threads).
  mutable std::mutex messagesMutex;
  /// The first validation messages.
  std::vector<std::string> messages;
  /// Serializes vkQueueSubmit on `queue` (externally synchronized in
  /// Vulkan) between modules sharing this device.
  std::mutex queueMutex;
  /// Set once a call reports VK_ERROR_DEVICE_LOST.
  std::atomic<bool> lost{false};
  /// Guards `lostBy`.
  mutable std::mutex lostMutex;
  /// The error of the first VK_ERROR_DEVICE_LOST, repeated by later calls.
  std::string lostBy;
  /// DeviceOptions::memoryLimit (0: none).
  uint64_t memoryLimit = 0;
  /// Bytes held by Buffers of this device (Device::memoryInUse).
  std::atomic<uint64_t> memoryInUse{0};
  /// vkQueueSubmit calls so far (Device::submitCount).
  std::atomic<uint64_t> submits{0};
  /// Deferred runs waiting for submission, in the order deferred.
  std::vector<DeferredItem> deferred;
  /// Results of submitted deferred runs, by ticket, until taken.
  std::map<uint64_t, DeferredOutcome> deferredDone;
  /// Tickets of waiting runs whose DeferredRun was destroyed: their results
  /// are dropped when they are submitted.
  std::set<uint64_t> deferredForgotten;
  /// The next ticket; 0 means none.
  uint64_t nextTicket = 1;
  /// Deferred runs taken along by the submission signalling ridingFence,
  /// until its wait finishes them.
  std::vector<DeferredItem> riding;
  /// The fence of the submission `riding` went with.
  VkFence ridingFence = VK_NULL_HANDLE;
  /// Signalled by submissions of deferred runs; created by the first one,
  /// destroyed by ~Impl.
  VkFence deferredFence = VK_NULL_HANDLE;
};

/// Creates `impl.instance`; with `impl.validation`, also the validation
/// layer and the messenger that reports to `impl` (instance.cpp).
Status createInstance(Device::Impl &impl);

/// What to do when no driver is there; names the env variables that most
/// often hide an installed one.
std::string installHint();

} // namespace capture::rt

#endif // CAPTURE_RT_DEVICE_IMPL_H
