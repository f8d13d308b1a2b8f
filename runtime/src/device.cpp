//===- device.cpp - Device selection, limits and the queue ----------------===//

#include "device_impl.h"

#include "capture/rt/capmod.h"
#include "cpu_threads.h"

#include <algorithm>
#include <cctype>

namespace capture::rt {
namespace {

std::string lower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

DeviceType toDeviceType(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return DeviceType::Cpu;
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return DeviceType::DiscreteGpu;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return DeviceType::IntegratedGpu;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return DeviceType::VirtualGpu;
  default:
    return DeviceType::Other;
  }
}

/// Default preference: GPUs first (discrete, integrated, virtual), then
/// other devices, then the CPU.
int preference(DeviceType t) {
  switch (t) {
  case DeviceType::DiscreteGpu:
    return 0;
  case DeviceType::IntegratedGpu:
    return 1;
  case DeviceType::VirtualGpu:
    return 2;
  case DeviceType::Other:
    return 3;
  case DeviceType::Cpu:
    return 4;
  case DeviceType::Host:
    return 5;
  }
  return 5;
}

std::optional<uint32_t> computeQueueFamily(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  for (uint32_t i = 0; i < count; ++i)
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
        families[i].queueCount > 0)
      return i;
  return std::nullopt;
}

struct Candidate {
  VkPhysicalDevice physical; // the handle
  DeviceInfo info;           // its description
  uint32_t queueFamily;      // a compute family, when info.hasCompute
};

Result<std::vector<Candidate>> enumerate(VkInstance instance) {
  uint32_t count = 0;
  VkResult r = vkEnumeratePhysicalDevices(instance, &count, nullptr);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE)
    return vkCheck(r, "vkEnumeratePhysicalDevices", "the capture runtime");
  std::vector<VkPhysicalDevice> physicals(count);
  r = vkEnumeratePhysicalDevices(instance, &count, physicals.data());
  if (r != VK_SUCCESS && r != VK_INCOMPLETE)
    return vkCheck(r, "vkEnumeratePhysicalDevices", "the capture runtime");
  physicals.resize(count);
  if (physicals.empty())
    return Status::error("no Vulkan device found (the Vulkan loader found "
                         "no driver with a device). " +
                         installHint());
  std::vector<Candidate> out;
  for (uint32_t i = 0; i < physicals.size(); ++i) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physicals[i], &props);
    Candidate c{physicals[i], {}, 0};
    c.info.index = i;
    c.info.name = props.deviceName;
    c.info.type = toDeviceType(props.deviceType);
    c.info.apiVersion = props.apiVersion;
    std::optional<uint32_t> family = computeQueueFamily(physicals[i]);
    c.info.hasCompute = family.has_value();
    c.queueFamily = family.value_or(0);
    out.push_back(std::move(c));
  }
  return out;
}

std::string listing(const std::vector<Candidate> &candidates) {
  std::string s;
  for (const Candidate &c : candidates) {
    s += s.empty() ? "" : ", ";
    s += "[" + std::to_string(c.info.index) + "] " + describeDevice(c.info);
    if (!c.info.hasCompute)
      s += " (no compute queue)";
  }
  return s;
}

/// Applies the selector rules of device.h.
Result<size_t> select(const std::vector<Candidate> &candidates,
                      const std::string &selector, const std::string &source) {
  std::string sel = lower(selector);
  auto usable = [&](size_t i) { return candidates[i].info.hasCompute; };
  auto noMatch = [&](const std::string &why) {
    return Status::error("no usable Vulkan device matches " + source + " '" +
                         selector + "' (" + why +
                         "); devices found: " + listing(candidates) +
                         ". Use an index, 'cpu' (lavapipe), 'gpu', 'vulkan' "
                         "(a GPU, else lavapipe), 'host' (native code, no "
                         "Vulkan), or part of a device name");
  };
  if (sel.empty() || sel == "vulkan") {
    std::optional<size_t> best;
    for (size_t i = 0; i < candidates.size(); ++i)
      if (usable(i) && (!best || preference(candidates[i].info.type) <
                                     preference(candidates[*best].info.type)))
        best = i;
    if (!best)
      return Status::error("no Vulkan device with a compute queue; devices "
                           "found: " +
                           listing(candidates) + ". " + installHint());
    return *best;
  }
  if (std::all_of(sel.begin(), sel.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    size_t index = sel.size() > 9 ? candidates.size() : std::stoul(sel);
    if (index >= candidates.size())
      return noMatch("index out of range");
    if (!usable(index))
      return noMatch("that device has no compute queue");
    return index;
  }
  bool wantCpu = sel == "cpu" || sel == "lavapipe" || sel == "llvmpipe";
  bool wantGpu = sel == "gpu";
  for (size_t i = 0; i < candidates.size(); ++i) {
    const DeviceInfo &info = candidates[i].info;
    bool match =
        wantCpu   ? info.type == DeviceType::Cpu
        : wantGpu ? preference(info.type) <= preference(DeviceType::VirtualGpu)
                  : lower(info.name).find(sel) != std::string::npos;
    if (match && usable(i))
      return i;
  }
  if (wantCpu)
    return noMatch("no CPU device; install mesa-vulkan-drivers for lavapipe, "
                   "the CPU Vulkan device");
  return noMatch(wantGpu ? "no GPU" : "no device name contains it");
}

/// Copies the limits modules are checked against.
void fillLimits(Device::Impl &impl, uint32_t instanceVersion) {
  const VkPhysicalDeviceLimits &l = impl.properties.limits;
  DeviceLimits &d = impl.limits;
  d.deviceName = impl.info.name;
  d.apiVersion = impl.properties.apiVersion;
  for (int i = 0; i < 3; ++i) {
    d.maxWorkGroupCount[i] = l.maxComputeWorkGroupCount[i];
    d.maxWorkGroupSize[i] = l.maxComputeWorkGroupSize[i];
  }
  d.maxWorkGroupInvocations = l.maxComputeWorkGroupInvocations;
  d.minStorageBufferOffsetAlignment = l.minStorageBufferOffsetAlignment;
  d.maxStorageBufferRange = l.maxStorageBufferRange;
  d.maxStorageBuffersPerSet = std::min(l.maxPerStageDescriptorStorageBuffers,
                                       l.maxDescriptorSetStorageBuffers);
  d.minTexelBufferOffsetAlignment = l.minTexelBufferOffsetAlignment;
  d.maxTexelBufferElements = l.maxTexelBufferElements;
  d.maxStorageImagesPerSet = std::min(l.maxPerStageDescriptorStorageImages,
                                      l.maxDescriptorSetStorageImages);
  // Asked once per device, so that loading a module with texel bindings
  // needs no Vulkan call to know it can create their views.
  VkFormatProperties rgba32f{};
  vkGetPhysicalDeviceFormatProperties(impl.physical,
                                      VK_FORMAT_R32G32B32A32_SFLOAT, &rgba32f);
  d.rgba32fStorageTexelBuffer =
      (rgba32f.bufferFeatures & VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT) !=
      0;
  uint64_t largestHeap = 0;
  for (uint32_t i = 0; i < impl.memory.memoryHeapCount; ++i)
    largestHeap = std::max(largestHeap, impl.memory.memoryHeaps[i].size);
  d.maxAllocationSize = largestHeap;
  // llvmpipe reports no such limit; it is a constant of its code generator.
  d.maxLoopIterations =
      impl.info.name.find("llvmpipe") != std::string::npos ? 65535 : 0;
  if (instanceVersion >= VK_API_VERSION_1_1 &&
      impl.properties.apiVersion >= VK_API_VERSION_1_1) {
    VkPhysicalDeviceSubgroupProperties subgroup{};
    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    VkPhysicalDeviceMaintenance3Properties m3{};
    m3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
    m3.pNext = &subgroup;
    VkPhysicalDeviceProperties2 p2{};
    p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p2.pNext = &m3;
    vkGetPhysicalDeviceProperties2(impl.physical, &p2);
    constexpr VkSubgroupFeatureFlags arithmetic =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
    bool compute = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
    d.subgroupArithmetic =
        compute && (subgroup.supportedOperations & arithmetic) == arithmetic;
    constexpr VkSubgroupFeatureFlags shuffle =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
    d.subgroupShuffle =
        compute && (subgroup.supportedOperations & shuffle) == shuffle;
    d.subgroupSize = subgroup.subgroupSize;
    if (m3.maxMemoryAllocationSize)
      d.maxAllocationSize =
          std::min(d.maxAllocationSize, uint64_t(m3.maxMemoryAllocationSize));
  }
}

} // namespace

const char *deviceTypeName(DeviceType type) {
  switch (type) {
  case DeviceType::Cpu:
    return "cpu";
  case DeviceType::DiscreteGpu:
    return "discrete-gpu";
  case DeviceType::IntegratedGpu:
    return "integrated-gpu";
  case DeviceType::VirtualGpu:
    return "virtual-gpu";
  case DeviceType::Other:
    return "other";
  case DeviceType::Host:
    return "host";
  }
  return "other";
}

std::string describeDevice(const DeviceInfo &info) {
  return info.name + " (" + deviceTypeName(info.type) + ")";
}

Result<std::vector<DeviceInfo>> listDevices() {
  Device::Impl impl;
  CAPTURE_RT_RETURN_IF_ERROR(createInstance(impl));
  Result<std::vector<Candidate>> candidates = enumerate(impl.instance);
  if (candidates.isError())
    return candidates.status();
  std::vector<DeviceInfo> infos;
  for (const Candidate &c : candidates.value())
    infos.push_back(c.info);
  return infos;
}

Status Device::Impl::check(VkResult result, const char *call,
                           const std::string &what) {
  Status status = vkCheck(result, call, what);
  if (result == VK_ERROR_DEVICE_LOST) {
    std::lock_guard<std::mutex> lock(lostMutex);
    if (!lost.exchange(true))
      lostBy = status.message();
  }
  return status;
}

Status Device::Impl::checkNotLost(const std::string &what) const {
  if (!lost.load())
    return Status::ok();
  std::lock_guard<std::mutex> lock(lostMutex);
  return Status::error("cannot run " + what + ": device '" + info.name +
                       "' was lost earlier (" + lostBy + ")");
}

Status Device::Impl::submitAndWait(VkCommandBuffer cmd, VkFence fence,
                                   const std::string &what) {
  CAPTURE_RT_RETURN_IF_ERROR(submit(cmd, fence, what));
  return wait(fence, what);
}

Status Device::Impl::submit(VkCommandBuffer cmd, VkFence fence,
                            const std::string &what) {
  return submit(std::vector<VkCommandBuffer>{cmd}, fence, what);
}

Status Device::Impl::submit(const std::vector<VkCommandBuffer> &cmds,
                            VkFence fence, const std::string &what) {
  if (deferred.empty()) // the usual case: no copies of `cmds` or `what`
    return submitNow(cmds, fence, what);
  // Runs deferred before this work go first, in the same submission
  // (deferred.h); its wait finishes them.
  std::string named = what;
  std::vector<VkCommandBuffer> all = takeRiders(fence, named);
  all.insert(all.end(), cmds.begin(), cmds.end());
  Status status = submitNow(all, fence, named);
  if (status.isError())
    finishRiders(fence, status);
  return status;
}

Status Device::Impl::submitNow(const std::vector<VkCommandBuffer> &cmds,
                               VkFence fence, const std::string &what) {
  CAPTURE_RT_RETURN_IF_ERROR(checkNotLost(what));
  CAPTURE_RT_RETURN_IF_ERROR(
      check(vkResetFences(device, 1, &fence), "vkResetFences", what));
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = static_cast<uint32_t>(cmds.size());
  submit.pCommandBuffers = cmds.data();
  std::lock_guard<std::mutex> lock(queueMutex);
  ++submits;
  VkResult r = vkQueueSubmit(queue, 1, &submit, fence);
  if (r != VK_SUCCESS && r != VK_ERROR_DEVICE_LOST)
    // The fence is reset and nothing will signal it: an empty submission
    // does, once earlier work is done, so that the owner's destructor can
    // wait for it without waiting forever. If this fails too, the wait
    // reports the failure instead.
    (void)vkQueueSubmit(queue, 0, nullptr, fence);
  return check(r, "vkQueueSubmit", what);
}

void Device::Impl::waitBeforeDestroy(VkFence fence) {
  if (fence && !lost.load())
    (void)check(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX),
                "vkWaitForFences", "destruction");
  finishRiders(fence, Status::error("the submission was never waited for"));
}

Status Device::Impl::reserveMemory(uint64_t bytes, const std::string &what) {
  uint64_t before = memoryInUse.fetch_add(bytes);
  if (memoryLimit == 0 ||
      (before <= memoryLimit && bytes <= memoryLimit - before))
    return Status::ok();
  memoryInUse.fetch_sub(bytes);
  return Status::error(
      "vkAllocateMemory failed for " + what +
          ": refused before the call: " + std::to_string(bytes) +
          " more bytes would pass the memory limit of device '" + info.name +
          "' (DeviceOptions::memoryLimit = " + std::to_string(memoryLimit) +
          " bytes, " + std::to_string(before) + " in use), treated as " +
          vkResultName(VK_ERROR_OUT_OF_DEVICE_MEMORY),
      StatusCode::OutOfMemory);
}

void Device::Impl::releaseMemory(uint64_t bytes) { memoryInUse -= bytes; }

Device::Impl::~Impl() {
  if (device) {
    // Modules waited for their work; this covers a failed wait. The result
    // does not matter: destroying is allowed after device loss too.
    if (!lost.load())
      (void)vkDeviceWaitIdle(device);
    if (deferredFence)
      vkDestroyFence(device, deferredFence, nullptr);
    vkDestroyDevice(device, nullptr);
  }
  if (messenger && destroyMessenger)
    destroyMessenger(instance, messenger, nullptr);
  if (instance)
    vkDestroyInstance(instance, nullptr);
}

Device::Device(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Device::~Device() = default;

/// Whether the default choice may end on the host device.
static bool defaultMayPickHost(const DeviceOptions &options) {
  return options.selector.empty() && !options.validation &&
         options.hostRuledOut.empty();
}

bool mayBeHostDevice(const DeviceOptions &options) {
  return lower(options.selector) == "host" || defaultMayPickHost(options);
}

/// Whether `candidates` hold a usable GPU (what the default prefers to the
/// host device).
static bool hasGpu(const std::vector<Candidate> &candidates) {
  for (const Candidate &c : candidates)
    if (c.info.hasCompute &&
        preference(c.info.type) <= preference(DeviceType::VirtualGpu))
      return true;
  return false;
}

/// Why a Vulkan device was chosen (Device::choice).
static std::string vulkanChoice(const DeviceOptions &options,
                                const DeviceInfo &chosen) {
  if (!options.selector.empty())
    return options.selectorSource + " '" + options.selector + "'";
  if (preference(chosen.type) <= preference(DeviceType::VirtualGpu))
    return std::string("default: the first ") + deviceTypeName(chosen.type);
  if (options.validation)
    return "default: no Vulkan GPU, and validation was asked (the host "
           "device has none)";
  if (!options.hostRuledOut.empty())
    return "default: no Vulkan GPU, and the host device cannot run it (" +
           options.hostRuledOut + ")";
  return "default: no Vulkan GPU";
}

/// The host device: no Vulkan at all; modules loaded on it run their host
/// code (the cpu target) on the calling thread and `threads` - 1 workers.
static std::unique_ptr<Device::Impl> hostDevice(const DeviceOptions &options,
                                                std::string choice) {
  auto impl = std::make_unique<Device::Impl>();
  impl->choice = std::move(choice);
  // cpuThreads counts a pool beside the calling thread's work, as for
  // llvmpipe: absent, one thread per core the process may use.
  unsigned threads = allowedCpus();
  if (options.cpuThreads && *options.cpuThreads != kCpuThreadsDriverDefault)
    threads = static_cast<unsigned>(std::max(*options.cpuThreads, 1));
  impl->hostThreads = std::max(threads, 1u);
  impl->info.name = "host CPU (native code, " +
                    std::to_string(impl->hostThreads) +
                    (impl->hostThreads == 1 ? " thread)" : " threads)");
  impl->info.type = DeviceType::Host;
  impl->info.hasCompute = true;
  impl->limits.deviceName = impl->info.name;
  impl->cpuThreads.source = options.cpuThreads
                                ? CpuThreadsSource::Options
                                : CpuThreadsSource::CaptureDefault;
  impl->cpuThreads.threads = static_cast<int>(impl->hostThreads);
  impl->cpuThreads.reason =
      !options.cpuThreadsReason.empty() ? options.cpuThreadsReason
      : options.cpuThreads              ? "as asked, the caller included"
                                        : "one per core, the caller included";
  impl->waitSetting.policy = WaitPolicy::Block;
  impl->waitSetting.requested = options.waitPolicy;
  impl->waitSetting.reason = "the host driver runs on the calling thread";
  impl->memoryLimit = options.memoryLimit;
  return impl;
}

Result<std::shared_ptr<Device>> Device::create(const DeviceOptions &options) {
  std::string selector = lower(options.selector);
  if (selector == "host") {
    if (options.validation)
      return Status::error(
          "the host device (" + options.selectorSource +
          " 'host') has no Vulkan validation layer to enable; expected "
          "validation off, or a Vulkan device");
    return std::shared_ptr<Device>(new Device(hostDevice(
        options, options.selectorSource + " '" + options.selector + "'")));
  }
  // Without a Vulkan GPU the default is the host device: native code runs
  // a step several times as fast as lavapipe runs its SPIR-V.
  bool hostAllowed = defaultMayPickHost(options);
  auto onHost = [&](const std::string &why) {
    return Result<std::shared_ptr<Device>>(std::shared_ptr<Device>(new Device(
        hostDevice(options, "default: " + why + ", so the host device"))));
  };
  Result<CpuThreadsSetting> cpuThreads = chooseCpuThreads(options);
  if (cpuThreads.isError())
    return cpuThreads.status();
  // Covers every call that may create llvmpipe's screen: the instance, its
  // physical devices and the logical device; on every return path.
  ScopedCpuThreadsEnv cpuThreadsEnv(cpuThreads.value());
  auto impl = std::make_unique<Impl>();
  impl->cpuThreads = cpuThreads.value();
  impl->validation = options.validation;
  impl->printMessages = options.printValidationMessages;
  impl->onMessage = options.onValidationMessage;
  impl->memoryLimit = options.memoryLimit;
  if (Status created = createInstance(*impl); created.isError())
    return hostAllowed ? onHost("no Vulkan driver") : created;

  Result<std::vector<Candidate>> candidates = enumerate(impl->instance);
  if (candidates.isError())
    return hostAllowed ? onHost("no Vulkan device") : candidates.status();
  if (hostAllowed && !hasGpu(candidates.value()))
    return onHost("no Vulkan GPU");
  Result<size_t> chosen =
      select(candidates.value(), options.selector, options.selectorSource);
  if (chosen.isError())
    return chosen.status();
  const Candidate &c = candidates.value()[chosen.value()];
  impl->physical = c.physical;
  impl->info = c.info;
  impl->choice = vulkanChoice(options, c.info);
  impl->queueFamily = c.queueFamily;
  Result<WaitSetting> wait = chooseWait(options.waitPolicy, impl->info,
                                        impl->cpuThreads, allowedCpus());
  if (wait.isError())
    return wait.status();
  impl->waitSetting = wait.value();
  vkGetPhysicalDeviceProperties(impl->physical, &impl->properties);
  vkGetPhysicalDeviceMemoryProperties(impl->physical, &impl->memory);
  // A failure leaves 1.0: only the maintenance3 limits are then skipped.
  uint32_t instanceVersion = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion(&instanceVersion) != VK_SUCCESS)
    instanceVersion = VK_API_VERSION_1_0;
  fillLimits(*impl, instanceVersion);
  VkPhysicalDeviceFeatures supported{};
  vkGetPhysicalDeviceFeatures(impl->physical, &supported);
  impl->limits.robustBufferAccess = supported.robustBufferAccess == VK_TRUE;
  CAPTURE_RT_RETURN_IF_ERROR(checkDeviceFeatures(impl->limits));
  // Only what the runtime needs: out-of-range accesses of any kernel stay
  // inside its bindings (reads give 0 or in-range values, writes are
  // dropped or land in range).
  VkPhysicalDeviceFeatures enabled{};
  enabled.robustBufferAccess = VK_TRUE;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{};
  queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queueInfo.queueFamilyIndex = impl->queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{};
  deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.pEnabledFeatures = &enabled;
  CAPTURE_RT_RETURN_IF_ERROR(vkCheckHandle(
      vkCreateDevice(impl->physical, &deviceInfo, nullptr, &impl->device),
      impl->device, "vkCreateDevice", "device '" + impl->info.name + "'"));
  vkGetDeviceQueue(impl->device, impl->queueFamily, 0, &impl->queue);
  return std::shared_ptr<Device>(new Device(std::move(impl)));
}

DeviceOptions deviceOptionsFor(const ModuleDesc &module,
                               DeviceOptions options) {
  if (!module.hostCode && options.hostRuledOut.empty())
    options.hostRuledOut =
        "the module has no host code: capture-aot --target=cpu adds it";
  return options;
}

const DeviceInfo &Device::info() const { return impl_->info; }

const std::string &Device::choice() const { return impl_->choice; }

const DeviceLimits &Device::limits() const { return impl_->limits; }

const CpuThreadsSetting &Device::cpuThreadsSetting() const {
  return impl_->cpuThreads;
}

const WaitSetting &Device::waitSetting() const { return impl_->waitSetting; }

WaitCounts Device::waitCounts() const {
  WaitCounts counts;
  counts.blocked = impl_->waitCounts.blocked.load();
  counts.slept = impl_->waitCounts.slept.load();
  counts.polled = impl_->waitCounts.polled.load();
  return counts;
}

bool Device::validationEnabled() const { return impl_->validation; }

uint64_t Device::validationMessageCount() const {
  return impl_->messageCount.load();
}

uint64_t Device::memoryInUse() const { return impl_->memoryInUse.load(); }

bool Device::isLost() const { return impl_->lost.load(); }

std::vector<std::string> Device::validationMessages() const {
  std::lock_guard<std::mutex> lock(impl_->messagesMutex);
  return impl_->messages;
}

} // namespace capture::rt
