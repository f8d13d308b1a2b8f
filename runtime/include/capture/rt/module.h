//===- module.h - A loaded module: pipelines, buffers, replays --*- C++ -*-===//
//
// Loading verifies the whole file (capmod.h) and the device limits before
// creating any Vulkan object, then creates one compute pipeline per kernel,
// the buffers, uploads weights and constants once, and records each entry's
// command buffer once. A replay packs the inputs into the entry's mapped
// staging buffer, submits the recorded command buffer (one vkQueueSubmit),
// waits for its fence and unpacks the outputs.
//
// Not thread-safe: one replay, parameter update or read-back at a time.
// Destroying a Module destroys every Vulkan object it created.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_MODULE_H
#define CAPTURE_RT_MODULE_H

#include "capture/rt/device.h"
#include "capture/rt/module_desc.h"
#include "capture/rt/status.h"
#include "capture/rt/tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace capture::rt {

/// A module loaded on a device, ready to replay its entries.
class Module {
public:
  /// Reads, verifies and loads the module file at `path`.
  static Result<std::unique_ptr<Module>>
  loadFile(std::shared_ptr<Device> device, const std::string &path);

  /// Verifies and loads a module file held in memory.
  static Result<std::unique_ptr<Module>>
  loadBytes(std::shared_ptr<Device> device, const uint8_t *data, size_t size);

  /// Verifies and loads an already parsed module.
  static Result<std::unique_ptr<Module>> load(std::shared_ptr<Device> device,
                                              ModuleDesc desc);

  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// The verified contents of the module file.
  const ModuleDesc &desc() const;

  /// The device the module lives on.
  const Device &device() const;

  /// Entry names, in file order.
  std::vector<std::string> entryNames() const;

  /// The entry named `name`, or an error listing the available entries.
  Result<const EntryDesc *> findEntry(std::string_view name) const;

  /// Replays entry `entry`: every input of the entry must be given exactly
  /// once with the declared shape and dtype (errors name expected and got).
  /// Returns the outputs in declaration order.
  Result<std::vector<NamedTensor>> run(std::string_view entry,
                                       const std::vector<NamedTensor> &inputs);

  /// Replaces the value of weight `name`; shape and dtype must match.
  Status setParam(std::string_view name, const HostTensor &value);

  /// Reads the current value of weight `name` back from the device.
  Result<HostTensor> getParam(std::string_view name);

  /// Reads probe `probe` of entry `entry` as left by the last replay. Fails
  /// when the last replay was of another entry (which may have overwritten
  /// the scratch memory probes live in) or when there was none.
  Result<HostTensor> readProbe(std::string_view entry, std::string_view probe);

  /// Internal state; defined in src/module_impl.h.
  struct Impl;

private:
  explicit Module(std::unique_ptr<Impl> impl);
  /// Vulkan objects and per-entry state.
  std::unique_ptr<Impl> impl_;
};

} // namespace capture::rt

#endif // CAPTURE_RT_MODULE_H
