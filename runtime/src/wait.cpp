//===- wait.cpp - Blocking and polling waits for a submission -------------===//

#include "wait.h"

#include "capture/rt/suggest.h"
#include "device_impl.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace capture::rt {
namespace {

using Clock = std::chrono::steady_clock;

/// Nanoseconds since `start`.
uint64_t elapsedNs(Clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start)
          .count());
}

/// Tells the core the thread is in a poll loop (lets a sibling hyperthread
/// run, saves power); a no-op where there is no such instruction.
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// The three policies, in the order of the enumerators.
constexpr WaitPolicy kPolicies[] = {WaitPolicy::Auto, WaitPolicy::Block,
                                    WaitPolicy::Spin};

} // namespace

const char *waitPolicyName(WaitPolicy policy) {
  switch (policy) {
  case WaitPolicy::Auto:
    return "auto";
  case WaitPolicy::Block:
    return "block";
  case WaitPolicy::Spin:
    return "spin";
  }
  return "unknown";
}

Result<WaitPolicy> parseWaitPolicy(const std::string &text,
                                   const std::string &what) {
  std::vector<std::string_view> names;
  for (WaitPolicy p : kPolicies) {
    if (text == waitPolicyName(p))
      return p;
    names.push_back(waitPolicyName(p));
  }
  return Status::error(what + " is '" + text +
                       "', expected 'auto', 'block' or 'spin'" +
                       suggestName(text, names));
}

std::string describeWait(const WaitSetting &setting) {
  std::string out = waitPolicyName(setting.policy);
  if (setting.requested == WaitPolicy::Auto)
    return out + " (auto: " + setting.reason + ")";
  return out + " (DeviceOptions)";
}

void WaitHistory::add(uint64_t ns) {
  waits[next] = ns;
  next = (next + 1) % kSize;
  count = std::min(count + 1, kSize);
}

std::optional<uint64_t> WaitHistory::expectedNs() const {
  if (count == 0)
    return std::nullopt;
  return *std::min_element(waits.begin(), waits.begin() + count);
}

Result<WaitSetting> chooseWait(WaitPolicy requested, const DeviceInfo &info,
                               const CpuThreadsSetting &threads,
                               unsigned allowedCpus) {
  if (std::find(std::begin(kPolicies), std::end(kPolicies), requested) ==
      std::end(kPolicies))
    return Status::error(
        "DeviceOptions::waitPolicy is " +
        std::to_string(static_cast<int>(requested)) +
        ", expected WaitPolicy::Auto (0), WaitPolicy::Block (1) or "
        "WaitPolicy::Spin (2)");
  WaitSetting setting;
  setting.requested = requested;
  if (requested != WaitPolicy::Auto) {
    setting.policy = requested;
    return setting;
  }
  setting.policy = WaitPolicy::Block;
  if (info.type != DeviceType::Cpu) {
    setting.reason = "the device is not the CPU device";
    return setting;
  }
  if (!threads.threads || *threads.threads != 0) {
    setting.reason =
        "llvmpipe runs its pool, from which a polling waiter would take a "
        "CPU";
    return setting;
  }
  if (allowedCpus < 2) {
    setting.reason = "this process may use 1 CPU, which llvmpipe's queue "
                     "thread needs";
    return setting;
  }
  setting.policy = WaitPolicy::Spin;
  setting.reason = "llvmpipe runs without its pool and this process may use " +
                   std::to_string(allowedCpus) + " CPUs";
  return setting;
}

unsigned allowedCpus() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

Status Device::Impl::waitFence(VkFence fence, const std::string &what,
                               WaitHistory *history) {
  Clock::time_point start = Clock::now();
  auto blockUntilDone = [&]() {
    CAPTURE_RT_RETURN_IF_ERROR(
        check(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX),
              "vkWaitForFences", what));
    ++waitCounts.blocked;
    if (history)
      history->add(elapsedNs(start));
    return Status::ok();
  };
  if (waitSetting.policy != WaitPolicy::Spin)
    return blockUntilDone();
  auto done = [&](std::atomic<uint64_t> &counter) {
    ++counter;
    if (history)
      history->add(elapsedNs(start));
    return Status::ok();
  };
  std::optional<uint64_t> expected =
      history ? history->expectedNs() : std::nullopt;
  uint64_t pollUntilNs = spinTimes.firstSpinNs;
  if (expected) {
    pollUntilNs = *expected + std::max(*expected / 2, spinTimes.lateSpinNs);
    if (*expected > spinTimes.sleepMarginNs) {
      VkResult slept = vkWaitForFences(device, 1, &fence, VK_TRUE,
                                       *expected - spinTimes.sleepMarginNs);
      if (slept == VK_SUCCESS)
        return done(waitCounts.slept);
      if (slept != VK_TIMEOUT)
        return check(slept, "vkWaitForFences", what);
    }
  }
  for (;;) {
    VkResult status = vkGetFenceStatus(device, fence);
    if (status == VK_SUCCESS)
      return done(waitCounts.polled);
    if (status != VK_NOT_READY)
      return check(status, "vkGetFenceStatus", what);
    if (elapsedNs(start) >= pollUntilNs)
      break;
    for (int i = 0; i < 32; ++i)
      cpuRelax();
  }
  return blockUntilDone();
}

} // namespace capture::rt
