//===- host_module.h - A module run by the cpu driver -----------*- C++ -*-===//
//
// The cpu driver: a module compiled for the cpu target (its HostCode) run
// without Vulkan. Its buffers live in host memory, an entry's inputs are
// packed straight into its Input buffer and its schedule runs on the
// calling thread, one host-code call per workgroup. What a run accepts,
// returns and refuses is the Vulkan replay's, from the same
// device-independent core (core/entry_io.h): inputs and outputs matched by
// name, shape and dtype, the runtime-filled training inputs, a refused
// training step (non-finite gradient norm, out-of-range index) that leaves
// weights, moments and the step counter unchanged, unset weights refused,
// probes. It is not yet behind Module's API (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_HOST_MODULE_H
#define CAPTURE_RT_HOST_MODULE_H

#include "capture/rt/module.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace capture::rt {

/// How the cpu driver runs a module.
struct HostModuleOptions {
  /// Threads that run the schedule, the caller included: 1 runs everything
  /// on the calling thread; 0 (the default) one per core the process may
  /// use. Launches too small to pay for a split run on the caller alone.
  unsigned threads = 0;
};

/// A module loaded by the cpu driver.
class HostModule {
public:
  /// Verifies `desc`, loads its host code (refused, naming what is missing,
  /// when the module has none or the machine lacks its ISA level), resolves
  /// every dispatch to its entry point and binding addresses, and fills the
  /// Weights, Constants and Optimizer buffers as Module::load does.
  /// Starts the threads `options` asks for.
  static Result<std::unique_ptr<HostModule>>
  load(ModuleDesc desc, const HostModuleOptions &options = {});
  /// Reads (and verifies) a .capmod file, then load().
  static Result<std::unique_ptr<HostModule>>
  loadFile(const std::string &path, const HostModuleOptions &options = {});
  /// Reads (and verifies) .capmod bytes, then load().
  static Result<std::unique_ptr<HostModule>>
  loadBytes(const uint8_t *data, size_t size,
            const HostModuleOptions &options = {});

  HostModule(const HostModule &) = delete;
  HostModule &operator=(const HostModule &) = delete;
  ~HostModule();

  /// The module's contents.
  const ModuleDesc &desc() const;

  /// Threads that run the schedule, the caller included.
  unsigned threads() const;

  /// The handle (index into desc().entries) of entry `name`, or an error
  /// listing the entries; resolve once, run many times.
  Result<size_t> entryIndex(std::string_view name) const;

  /// Runs entry `entry` (a handle from entryIndex) as Module::runViews does:
  /// outputs with a view in `outputs` are written there, the others
  /// returned; `probes` are returned after the outputs.
  Result<RunResult> run(size_t entry, const std::vector<TensorView> &inputs,
                        const std::vector<OutputView> &outputs = {},
                        const std::vector<std::string> &probes = {});

  /// Sets weight `name` (as Module::setParam).
  Status setParam(std::string_view name, const HostTensor &value);
  /// The current value of weight `name` (as Module::getParam).
  Result<HostTensor> getParam(std::string_view name) const;

  /// The optimizer state of training entry `entry`.
  Result<TrainState> trainState(size_t entry) const;
  /// Sets param group 0's learning rate of training entry `entry` for the
  /// next step (checked as Module::setLearningRate).
  Status setLearningRate(size_t entry, float lr);

  struct Impl;

private:
  explicit HostModule(std::unique_ptr<Impl> impl);
  /// Buffers, host code, schedules and per-entry state.
  std::unique_ptr<Impl> impl_;
};

} // namespace capture::rt

#endif // CAPTURE_RT_HOST_MODULE_H
