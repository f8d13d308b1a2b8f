//===- host_code.h - A cpu-target library loaded into the process -*- C++ -*-//
//
// The cpu target's kernels come as an ELF shared object inside the module
// (the compiler's capture::buildHostLibrary). Loading it runs no code of its
// own (it has no initializers: it is linked without libc), but calling an
// entry point runs the module's code in this process with its rights: a
// module with host code is trusted like a library (docs/reliability.md).
// The object is loaded from an anonymous memory file (memfd + dlopen, as
// IREE's system-library executables are), never written to disk.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_HOST_CODE_H
#define CAPTURE_RT_HOST_CODE_H

#include "capture/rt/status.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace capture::rt {

/// The loaded host code of a module.
class HostCode {
public:
  /// A kernel's entry point: its binding pointers in argument order, the
  /// workgroup to run and the workgroup count.
  using Entry = void (*)(void *const *bindings, int64_t group, int64_t groups);

  /// Loads `library` (an ELF shared object) compiled for `isaLevel` (see
  /// host_isa.h). Errors: the machine lacks features of the level (named),
  /// the bytes are not an x86-64 ELF shared object, or the dynamic loader
  /// refuses them (its message).
  static Result<HostCode> load(const std::vector<uint8_t> &library,
                               std::string_view isaLevel);

  /// The entry point of `kernel` (exported as `capture_k_<kernel>`), or an
  /// error naming the kernel.
  Result<Entry> entry(std::string_view kernel) const;

  HostCode(HostCode &&other) noexcept;
  HostCode &operator=(HostCode &&other) noexcept;
  HostCode(const HostCode &) = delete;
  HostCode &operator=(const HostCode &) = delete;
  ~HostCode();

private:
  HostCode() = default;
  /// dlopen's handle; null once moved from.
  void *handle = nullptr;
  /// The memory file the code was loaded from, open while it is loaded
  /// (its /proc path names the loaded object); -1 once moved from.
  int fd = -1;
};

} // namespace capture::rt

#endif // CAPTURE_RT_HOST_CODE_H
