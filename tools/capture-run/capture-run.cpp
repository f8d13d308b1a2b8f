//===- capture-run.cpp - Replays an entry of a .capmod module -------------===//
//
// capture-run FILE.capmod --entry NAME [--input name=file.npy]...
//     [--param name=file.npy]... [--output-dir DIR] [--device SEL]
//     [--cpu-threads N] [--wait P] [--probe NAME]... [--save-params DIR]
//     [--eager] [--profile] [--json]
//     forward entries:  [--repeat N]
//     training entries: [--steps N] [--keep-going] [--lr-at K=VALUE[@G]]...
//                       [--max-grad-norm-at K=VALUE]...
//                       [--input-at K:NAME=FILE.npy]... [--dump-state DIR]
// capture-run FILE.capmod --info [--json] [--graph] [--entry NAME]
//
// Prints the device (and llvmpipe's thread count on the CPU device), for a
// training entry one line per step
// ("step K: loss=... grad_norm=..." or "step K: update not applied: ..."),
// each output and probe (first 8 values), the number of recorded command
// buffers and the host wall-clock time per call (with --profile, the
// profile; with --json, all of it as one JSON object). Errors: "capture-run:
// error: ..." on stderr and exit code 1, also when a training step was
// refused; bad usage: the message, a pointer to --help and exit code 2.
//
//===----------------------------------------------------------------------===//

#include "cli.h"
#include "progress.h"

#include "capture/rt/capmod.h"
#include "capture/rt/device.h"
#include "capture/rt/environment.h"
#include "capture/rt/npy.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

using namespace capture::rt;

namespace capture::run {
namespace {

/// Replays a forward entry --repeat times, then reports.
int replayForward(const Options &opts, Module &module,
                  const std::string &entryName,
                  const std::vector<NamedTensor> &inputs) {
  uint64_t repeat = opts.repeat.value_or(1);
  std::vector<NamedTensor> outputs;
  RunRecord record;
  if (opts.profile)
    record.profile.emplace();
  Profile profile;
  RunOptions runOptions;
  runOptions.eager = opts.eager;
  runOptions.profile = opts.profile ? &profile : nullptr;
  Progress progress(opts.eager ? "eager call" : "replay", repeat);
  std::vector<NamedTensor> probes;
  for (uint64_t i = 0; i < repeat; ++i) {
    // The probes come with the last call's outputs, in its submission.
    if (i + 1 == repeat)
      runOptions.probes = opts.probes;
    auto start = std::chrono::steady_clock::now();
    Result<RunResult> result = module.runFull(entryName, inputs, runOptions);
    auto end = std::chrono::steady_clock::now();
    if (result.isError()) {
      progress.clear();
      return runtimeError(result.message());
    }
    record.addCall(
        std::chrono::duration<double, std::micro>(end - start).count());
    if (record.profile)
      addProfile(*record.profile, profile);
    if (i + 1 == repeat) {
      outputs = std::move(result->outputs);
      probes = std::move(result->probes);
    }
    progress.update(i + 1);
  }
  progress.clear();
  return report(opts, module, entryName, outputs, probes, record);
}

/// Loads, replays and prints; `validationMessages` counts what the
/// validation layer reports (CAPTURE_VALIDATION=1), including leaks reported
/// when the device is destroyed on return.
int replay(const Options &opts, uint64_t &validationMessages) {
  // The tool, not the library, reads CAPTURE_DEVICE (when --device is not
  // given) and CAPTURE_VALIDATION.
  DeviceOptions deviceOptions;
  deviceOptions.selector = opts.device;
  if (!opts.device.empty())
    deviceOptions.selectorSource = "--device";
  deviceOptions = deviceOptionsFromEnvironment(std::move(deviceOptions));
  deviceOptions.cpuThreads = opts.cpuThreads;
  // The module first: whether it has host code decides what the default
  // may choose, and the thread advice reads its work estimates.
  Result<ModuleDesc> desc = readCapmodFile(opts.module);
  if (desc.isError())
    return runtimeError(desc.message());
  deviceOptions = deviceOptionsFor(desc.value(), std::move(deviceOptions));
  std::optional<CpuThreadsAdvice> advice;
  // The advice weighs llvmpipe's fork and join per dispatch; the host
  // driver splits only the launches that pay, on one thread per core.
  if (opts.cpuThreadsAuto && !mayBeHostDevice(deviceOptions)) {
    advice = adviseCpuThreads(desc.value());
    if (advice) {
      deviceOptions.cpuThreads = advice->threads;
      deviceOptions.cpuThreadsReason = "auto, " + advice->reason;
    }
  }
  if (opts.wait)
    deviceOptions.waitPolicy = *opts.wait;
  deviceOptions.onValidationMessage = [&](const std::string &) {
    ++validationMessages;
  };
  Result<std::shared_ptr<Device>> device = Device::create(deviceOptions);
  if (device.isError())
    return runtimeError(device.message());
  if (!opts.json) {
    std::printf("device: %s (%s)\n",
                describeDevice(device.value()->info()).c_str(),
                device.value()->choice().c_str());
    // Only llvmpipe and the host driver read the setting.
    if (device.value()->info().type == DeviceType::Cpu)
      std::printf("llvmpipe threads: %s\n",
                  describeCpuThreads(*device.value()).c_str());
    else if (device.value()->info().type == DeviceType::Host)
      std::printf("host threads: %d (%s; --cpu-threads N to change)\n",
                  device.value()->cpuThreadsSetting().threads.value_or(1),
                  device.value()->cpuThreadsSetting().reason.c_str());
    std::printf("wait: %s\n", describeWait(*device.value()).c_str());
    std::fflush(stdout);
  }

  Result<std::unique_ptr<Module>> loaded =
      Module::load(device.value(), std::move(desc).value());
  if (loaded.isError())
    return runtimeError(loaded.message());
  Module &module = *loaded.value();

  std::string entryName = opts.entry;
  if (entryName.empty()) {
    std::vector<std::string> names = module.entryNames();
    if (names.size() != 1) {
      std::string list;
      for (const std::string &n : names)
        list += (list.empty() ? "'" : ", '") + n + "'";
      return runtimeError("the module has " + std::to_string(names.size()) +
                          " entries, choose one with --entry: " + list);
    }
    entryName = names[0];
  }
  Result<const EntryDesc *> found = module.findEntry(entryName);
  if (found.isError())
    return runtimeError(found.message());
  const EntryDesc &entry = *found.value();
  std::optional<std::string> misuse =
      entry.train ? checkTrainOptions(opts, module, entry)
                  : checkForwardOptions(opts, entry);
  if (misuse)
    return usageError(*misuse);
  for (const std::string &probe : opts.probes) {
    const auto &probes = entry.probes;
    if (std::none_of(
            probes.begin(), probes.end(),
            [&](const TensorSlotDesc &p) { return p.name == probe; })) {
      std::string list;
      for (const TensorSlotDesc &p : probes)
        list += (list.empty() ? "'" : ", '") + p.name + "'";
      return runtimeError("entry '" + entryName + "' has no probe '" + probe +
                          "'; its probes: " + (list.empty() ? "none" : list));
    }
  }

  if (!opts.paramsDir.empty())
    if (Status s = readWeights(module, opts.paramsDir, "--params-dir");
        s.isError())
      return runtimeError(s.message());
  for (const NamedPath &p : opts.params) {
    Result<HostTensor> value = readNpyFile(p.path);
    if (value.isError())
      return runtimeError(value.message());
    if (Status s = module.setParam(p.name, value.value()); s.isError())
      return runtimeError(s.message());
  }
  std::vector<NamedTensor> inputs;
  for (const NamedPath &p : opts.inputs) {
    Result<HostTensor> value = readNpyFile(p.path);
    if (value.isError())
      return runtimeError(value.message());
    inputs.push_back({p.name, std::move(value).value()});
  }
  if (entry.train)
    return runTrainSteps(opts, module, entry, inputs);
  return replayForward(opts, module, entryName, inputs);
}

int run(const Options &opts) {
  if (opts.info || opts.graph)
    return describeModule(opts);
  uint64_t validationMessages = 0;
  int rc = replay(opts, validationMessages);
  // With validation on, any message fails the run, so that tests can rely on
  // the exit code alone.
  if (rc == 0 && validationMessages > 0)
    return runtimeError(std::to_string(validationMessages) +
                        " Vulkan validation message(s), printed above");
  return rc;
}

} // namespace

int runtimeError(const std::string &message) {
  std::fprintf(stderr, "capture-run: error: %s\n", message.c_str());
  return 1;
}

} // namespace capture::run

int main(int argc, char **argv) {
  using namespace capture::run;
  Options opts;
  bool help = false;
  if (std::optional<std::string> error = parseArgs(argc, argv, opts, help))
    return usageError(*error);
  if (help) {
    printUsage();
    return 0;
  }
#if defined(__cpp_exceptions)
  try {
    return run(opts);
  } catch (const std::exception &e) {
    return runtimeError(std::string("internal error: ") + e.what());
  }
#else
  return run(opts);
#endif
}