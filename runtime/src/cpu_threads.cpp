//===- cpu_threads.cpp - llvmpipe's thread count, set around creation -----===//

#include "cpu_threads.h"

#include <cstdlib>

namespace capture::rt {
namespace {

constexpr const char *kVariable = "LP_NUM_THREADS";

/// The count in `text` when it is a plain decimal count that fits an int.
std::optional<int> parseCount(const std::string &text) {
  if (text.empty() || text.size() > 9)
    return std::nullopt;
  for (char c : text)
    if (c < '0' || c > '9')
      return std::nullopt;
  return std::stoi(text);
}

} // namespace

const char *cpuThreadsSourceName(CpuThreadsSource source) {
  switch (source) {
  case CpuThreadsSource::Environment:
    return "LP_NUM_THREADS from the environment";
  case CpuThreadsSource::Options:
    return "DeviceOptions";
  case CpuThreadsSource::CaptureDefault:
    return "Capture default";
  }
  return "unknown";
}

std::string describeCpuThreads(const CpuThreadsSetting &setting) {
  std::string count =
      setting.threads ? std::to_string(*setting.threads) : "driver default";
  std::string why = cpuThreadsSourceName(setting.source);
  if (setting.source == CpuThreadsSource::Options && !setting.reason.empty())
    why += ": " + setting.reason;
  if (setting.source == CpuThreadsSource::Environment && !setting.threads)
    why = "LP_NUM_THREADS='" + setting.environmentValue +
          "' from the environment, not a count";
  return count + " (" + why + ")";
}

Result<CpuThreadsSetting> chooseCpuThreads(const DeviceOptions &options) {
  if (options.cpuThreads && *options.cpuThreads < kCpuThreadsDriverDefault)
    return Status::error(
        "DeviceOptions::cpuThreads is " + std::to_string(*options.cpuThreads) +
        ", expected a thread count >= 0, or kCpuThreadsDriverDefault (" +
        std::to_string(kCpuThreadsDriverDefault) +
        ") to leave llvmpipe's own default");
  CpuThreadsSetting setting;
  if (const char *env = std::getenv(kVariable)) {
    setting.source = CpuThreadsSource::Environment;
    setting.environmentValue = env;
    setting.threads = parseCount(env);
    setting.overriddenOption = options.cpuThreads;
    setting.reason = options.cpuThreadsReason;
    return setting;
  }
  if (options.cpuThreads) {
    setting.source = CpuThreadsSource::Options;
    setting.reason = options.cpuThreadsReason;
    if (*options.cpuThreads != kCpuThreadsDriverDefault)
      setting.threads = *options.cpuThreads;
    return setting;
  }
  setting.source = CpuThreadsSource::CaptureDefault;
  setting.threads = 0;
  return setting;
}

ScopedCpuThreadsEnv::ScopedCpuThreadsEnv(const CpuThreadsSetting &setting) {
  // From the environment: left untouched. Driver default: nothing to set,
  // and the variable is absent (else the source would be the environment).
  if (setting.source == CpuThreadsSource::Environment || !setting.threads)
    return;
  set = setenv(kVariable, std::to_string(*setting.threads).c_str(), 1) == 0;
}

ScopedCpuThreadsEnv::~ScopedCpuThreadsEnv() {
  if (set)
    unsetenv(kVariable);
}

} // namespace capture::rt
