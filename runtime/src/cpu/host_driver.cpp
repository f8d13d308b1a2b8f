//===- host_driver.cpp - The host driver behind rt::Module ----------------===//

#include "host_driver.h"

#include <cstring>

namespace capture::rt {

Result<std::unique_ptr<HostDriver>>
HostDriver::load(const ModuleDesc &desc, unsigned threads,
                 std::shared_ptr<uint8_t> sharedWeights) {
  if (!desc.hostCode)
    return Status::error(
        "the module has no host code, which the host device runs; expected "
        "a module compiled for the cpu target (capture-aot --target=cpu), or "
        "a Vulkan device (selector 'vulkan': a GPU, else lavapipe)");
  std::unique_ptr<HostDriver> d(new HostDriver());
  Result<HostCode> code =
      HostCode::load(desc.hostCode->library, desc.hostCode->isaLevel);
  if (code.isError())
    return code.status();
  d->code.emplace(std::move(code).value());
  std::vector<HostCode::Entry> kernels;
  for (const KernelDesc &k : desc.kernels) {
    Result<HostCode::Entry> e = d->code->entry(k.name);
    if (e.isError())
      return e.status();
    kernels.push_back(e.value());
  }
  // Zeroed: Optimizer buffers start at zero (moments, as torch's do).
  for (const BufferDesc &b : desc.buffers) {
    std::shared_ptr<uint8_t> bytes;
    if (sharedWeights &&
        static_cast<int64_t>(d->bases.size()) == desc.weightsBuffer) {
      bytes = sharedWeights;
    } else if (b.size) {
      uint64_t size = (b.size + 63) / 64 * 64;
      auto *raw = static_cast<uint8_t *>(std::aligned_alloc(64, size));
      if (!raw)
        return Status::error("out of host memory for buffer " +
                             std::to_string(d->bases.size()) + " (" +
                             bufferKindName(b.kind) + ", " +
                             std::to_string(b.size) + " bytes)");
      std::memset(raw, 0, size);
      bytes.reset(raw, &std::free);
    }
    d->bases.push_back(bytes.get());
    d->memory.push_back(std::move(bytes));
  }
  for (const EntryDesc &e : desc.entries) {
    Result<HostSchedule> s = resolveSchedule(desc, e, kernels, d->bases);
    if (s.isError())
      return s.status();
    d->schedules.push_back(std::move(s).value());
  }
  d->pool = std::make_unique<HostPool>(std::max(threads, 1u));
  return d;
}

} // namespace capture::rt
