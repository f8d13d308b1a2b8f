//===- device.h - Vulkan instance and device selection ----------*- C++ -*-===//
//
// A Device is one Vulkan instance + logical device + compute queue, or the
// host device (native code, no Vulkan). It is chosen by a selector
// (DeviceOptions::selector), else by default: the first discrete GPU, else
// the first integrated GPU, else any other GPU, else the host device, else
// (validation asked, or DeviceOptions::hostRuledOut set) lavapipe, the CPU
// Vulkan device. Device::choice() says which rule chose it. Optional
// validation
// (DeviceOptions::validation) enables
// VK_LAYER_KHRONOS_validation with synchronization validation and counts
// every warning and error it reports. On the CPU device, llvmpipe's thread
// pool is off by default (DeviceOptions::cpuThreads), and the waiting
// thread then polls near the end of each step (DeviceOptions::waitPolicy).
// The library reads no environment variable of its own: tools pass
// CAPTURE_DEVICE and CAPTURE_VALIDATION through deviceOptionsFromEnvironment
// (environment.h).
//
// Errors: every failing Vulkan call is an error naming the call, the object
// and the VkResult. After VK_ERROR_DEVICE_LOST or an out-of-memory error
// every object stays destroyable.
//
// Modules keep their Device alive through a shared_ptr. A Device is not
// thread-safe except for its queue, which is locked around each submit.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_DEVICE_H
#define CAPTURE_RT_DEVICE_H

#include "capture/rt/capmod.h"
#include "capture/rt/status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace capture::rt {

/// VkPhysicalDeviceType, in the words capture-run prints.
enum class DeviceType {
  Cpu,           ///< "cpu", e.g. lavapipe
  DiscreteGpu,   ///< "discrete-gpu"
  IntegratedGpu, ///< "integrated-gpu"
  VirtualGpu,    ///< "virtual-gpu"
  Other,         ///< "other"
  Host,          ///< "host": the host device (no Vulkan; selector "host")
};

/// "cpu", "discrete-gpu", "integrated-gpu", "virtual-gpu", "other" or
/// "host".
const char *deviceTypeName(DeviceType type);

/// What the runtime knows about a physical device.
struct DeviceInfo {
  /// Index in vkEnumeratePhysicalDevices order (what a numeric selector
  /// refers to).
  uint32_t index = 0;
  /// VkPhysicalDeviceProperties::deviceName.
  std::string name;
  /// Device type.
  DeviceType type = DeviceType::Other;
  /// Supported Vulkan API version (VK_MAKE_API_VERSION packing).
  uint32_t apiVersion = 0;
  /// Whether it has a queue family with compute support (else unusable).
  bool hasCompute = false;
};

/// "llvmpipe (LLVM 15.0.6, 256 bits) (cpu)".
std::string describeDevice(const DeviceInfo &info);

/// DeviceOptions::cpuThreads value that leaves llvmpipe's thread count to
/// the driver (one thread per core).
constexpr int kCpuThreadsDriverDefault = -1;

/// Where the llvmpipe thread count of a Device came from.
enum class CpuThreadsSource {
  Environment,    ///< LP_NUM_THREADS was in the environment: it always wins.
  Options,        ///< DeviceOptions::cpuThreads.
  CaptureDefault, ///< Neither: Capture's default, 0.
};

/// "LP_NUM_THREADS from the environment", "DeviceOptions" or "Capture
/// default".
const char *cpuThreadsSourceName(CpuThreadsSource source);

/// The thread count llvmpipe (lavapipe) was created with, and why. Only the
/// CPU device reads it; other devices ignore it.
struct CpuThreadsSetting {
  /// Threads of llvmpipe's pool (0: every dispatch runs on the submitting
  /// thread); absent: the driver's default (kCpuThreadsDriverDefault, or an
  /// LP_NUM_THREADS that is not a decimal count).
  std::optional<int> threads;
  /// Where `threads` came from.
  CpuThreadsSource source = CpuThreadsSource::CaptureDefault;
  /// LP_NUM_THREADS as found, when source is Environment.
  std::string environmentValue;
  /// DeviceOptions::cpuThreads when the environment overrode it.
  std::optional<int> overriddenOption;
  /// DeviceOptions::cpuThreadsReason, when DeviceOptions::cpuThreads was
  /// given (the chosen count, or the one the environment overrode).
  std::string reason;
};

/// "0 (Capture default)", "4 (LP_NUM_THREADS from the environment)",
/// "driver default (DeviceOptions)".
std::string describeCpuThreads(const CpuThreadsSetting &setting);

/// How a Device's thread waits for its submissions.
enum class WaitPolicy {
  /// "auto": Spin where the device's work runs on another CPU than the
  /// waiting thread and a CPU is free for the waiter (llvmpipe without its
  /// pool, in a process allowed at least 2 CPUs), else Block. On such a
  /// device a blocked waiter is woken through the kernel once the queue
  /// thread signals the fence, which costs tens of microseconds per
  /// submission on a virtual machine; the idea of CUDA's
  /// cudaDeviceScheduleAuto.
  Auto,
  /// "block": vkWaitForFences without a timeout; the thread sleeps until the
  /// driver wakes it.
  Block,
  /// "spin": sleeps in vkWaitForFences until shortly before the end that
  /// the entry's recent waits predict, then polls the fence for a bounded
  /// time, then blocks. Costs a CPU while polling: with llvmpipe's pool it
  /// takes a core from the pool and makes large steps slower.
  Spin,
};

/// "auto", "block" or "spin".
const char *waitPolicyName(WaitPolicy policy);

/// The policy `text` names ("auto", "block" or "spin"); else an error that
/// names `what` (e.g. "option --wait"), what was found and what was
/// expected, with a suggestion for a near spelling.
Result<WaitPolicy> parseWaitPolicy(const std::string &text,
                                   const std::string &what);

/// How a Device waits, and why.
struct WaitSetting {
  /// What the Device does: Block or Spin, never Auto.
  WaitPolicy policy = WaitPolicy::Block;
  /// DeviceOptions::waitPolicy as given.
  WaitPolicy requested = WaitPolicy::Auto;
  /// Why `policy` follows from `requested`, in words ("llvmpipe runs
  /// without its pool and 4 CPUs are allowed"); empty when given outright.
  std::string reason;
};

/// "spin (auto: llvmpipe runs without its pool and 4 CPUs are allowed)",
/// "block (DeviceOptions)".
std::string describeWait(const WaitSetting &setting);

/// How a Device's waits ended, counted since its creation (profiles show
/// whether polling pays: a step that ends while the waiter sleeps or after
/// it gave up polling gains nothing from WaitPolicy::Spin).
struct WaitCounts {
  /// Waits that ended blocked in vkWaitForFences without a timeout: every
  /// wait under WaitPolicy::Block, and spinning waits whose step ran past
  /// the polling window.
  uint64_t blocked = 0;
  /// Spinning waits that ended during the sleep before the polling window
  /// (the step ended earlier than its history predicted).
  uint64_t slept = 0;
  /// Spinning waits that ended while polling.
  uint64_t polled = 0;
};

/// How to create a Device.
struct DeviceOptions {
  /// Device selector: an index, "cpu" / "lavapipe" / "llvmpipe", "gpu",
  /// "vulkan", "host", or a case-insensitive substring of the device name.
  /// Empty: the default choice (top of this file). "vulkan" is the default
  /// order without the host device (a GPU, else lavapipe). "host" is the
  /// host device: no Vulkan; a module loaded on it runs its host code
  /// (compiled with capture-aot --target=cpu) on the calling thread and
  /// cpuThreads - 1 workers (absent: one thread per core the process may
  /// use; 0 or 1: the calling thread alone).
  std::string selector;
  /// Why the host device cannot run what the caller will load (e.g. "the
  /// module has no host code"); when set, an empty selector picks as
  /// "vulkan" does, and choice() says why. Empty: the default may pick the
  /// host device.
  std::string hostRuledOut;
  /// Where the selector came from, as messages name it: "selector", or the
  /// variable deviceOptionsFromEnvironment read it from.
  std::string selectorSource = "selector";
  /// Enable VK_LAYER_KHRONOS_validation with synchronization validation.
  bool validation = false;
  /// Print each validation warning/error to stderr as it arrives.
  bool printValidationMessages = true;
  /// Called with each validation warning/error, also during the Device's
  /// destruction (where leaked objects are reported); so a test can count
  /// messages into a variable that outlives the Device.
  std::function<void(const std::string &)> onValidationMessage;
  /// Most bytes of device memory the runtime's buffers may hold on this
  /// device at once; 0: no limit but the driver's. An allocation that would
  /// pass it fails before the driver is asked, with the message an
  /// out-of-memory allocation gives, so that a process can keep room for
  /// others on a shared GPU and tests can make any allocation fail.
  uint64_t memoryLimit = 0;
  /// Threads of llvmpipe's pool (lavapipe, the CPU device). llvmpipe forks
  /// and joins its pool on every vkCmdDispatch: 28-55 us per dispatch with
  /// one thread per core against 0.33 us with 0 (the work then runs on the
  /// submitting thread), and the pool only pays off for dispatches of
  /// about 1 ms of work or more, while Capture's steps are many small
  /// dispatches. So absent means 0; kCpuThreadsDriverDefault leaves the
  /// driver's default; other values must be >= 0. Env LP_NUM_THREADS, when
  /// set, always wins. llvmpipe reads that variable while the instance and
  /// its physical devices are created, so Device::create sets it around
  /// those calls (and restores the environment after): no other thread may
  /// read or change the environment during Device::create. For a program
  /// that knows its module first, rt::adviseCpuThreads chooses from the
  /// compiler's work estimates (cpu_threads_advice.h).
  std::optional<int> cpuThreads;
  /// Why cpuThreads holds its value, in words (e.g. the advice's reason):
  /// kept in the setting for the caller to print; empty: not given.
  std::string cpuThreadsReason;
  /// How the Device's thread waits for each submission (WaitPolicy);
  /// Device::waitSetting says what Auto chose. Any other value than the
  /// enumerators is an error of Device::create.
  WaitPolicy waitPolicy = WaitPolicy::Auto;
};

/// `options` for the device that will run `module`: without host code (a
/// module compiled for a Vulkan target only) hostRuledOut says so, and the
/// default then picks a Vulkan device.
DeviceOptions deviceOptionsFor(const ModuleDesc &module,
                               DeviceOptions options = {});

/// Whether Device::create(options) may give the host device: the selector
/// "host", or none with nothing ruling the host device out of the default
/// (validation, hostRuledOut). A tool that tunes llvmpipe (its thread
/// advice) skips what the host device ignores.
bool mayBeHostDevice(const DeviceOptions &options);

/// Lists the physical devices visible to the Vulkan loader. Fails with an
/// explanation of how to install a driver when there is none.
Result<std::vector<DeviceInfo>> listDevices();

/// Whether VK_LAYER_KHRONOS_validation is installed (tests skip validation
/// runs without it).
bool validationLayerAvailable();

/// A Vulkan instance, logical device and compute queue.
class Device {
public:
  /// Creates the instance, picks a physical device as described at the top
  /// of this file, creates the logical device. Never aborts: a missing
  /// driver, missing validation layer or a selector matching no device is
  /// an error that lists what was found and says how to fix it.
  static Result<std::shared_ptr<Device>>
  create(const DeviceOptions &options = DeviceOptions());

  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  /// The chosen physical device.
  const DeviceInfo &info() const;

  /// Why this device was chosen, in words tools print: "selector 'gpu'",
  /// "CAPTURE_DEVICE 'host'", "default: no Vulkan GPU, so the host device".
  const std::string &choice() const;

  /// Limits modules are checked against.
  const DeviceLimits &limits() const;

  /// The llvmpipe thread count this device was created with and where it
  /// came from (meaningful on the CPU device only).
  const CpuThreadsSetting &cpuThreadsSetting() const;

  /// How this device waits for its submissions, and why.
  const WaitSetting &waitSetting() const;

  /// How this device's waits have ended so far.
  WaitCounts waitCounts() const;

  /// Whether validation is on.
  bool validationEnabled() const;

  /// Number of validation warnings and errors reported so far.
  uint64_t validationMessageCount() const;

  /// The first validation messages (at most 64), for test failure output.
  std::vector<std::string> validationMessages() const;

  /// Bytes of device memory held now by the runtime's buffers on this
  /// device (every module's buffers and staging buffers); 0 once they are
  /// all destroyed.
  uint64_t memoryInUse() const;

  /// Whether a submission or wait reported VK_ERROR_DEVICE_LOST. From then
  /// on every submission on this device fails at once with an error that
  /// names the first loss; its modules and the Device can still be
  /// destroyed (and must be, to create working ones).
  bool isLost() const;

  /// Submits the runs deferred on this device (RunOptions::deferred,
  /// deferred.h) in one submission, in the order deferred, and waits for
  /// it; each result then waits in its DeferredRun. Success when none
  /// waited; else the submission's or the wait's error, which every one of
  /// those runs' results holds too (a refused step is only in its own).
  Status submitDeferred();

  /// Runs deferred on this device and not submitted yet.
  size_t deferredCount() const;

  /// vkQueueSubmit calls made on this device so far, by all its modules
  /// (a submission of deferred runs counts once).
  uint64_t submitCount() const;

  /// Internal state (Vulkan handles); defined in src/device_impl.h.
  struct Impl;
  /// Internal state, for the runtime's own source files and tests.
  Impl &impl() { return *impl_; }

private:
  explicit Device(std::unique_ptr<Impl> impl);
  /// Vulkan handles and validation state.
  std::unique_ptr<Impl> impl_;
};

} // namespace capture::rt

#endif // CAPTURE_RT_DEVICE_H
