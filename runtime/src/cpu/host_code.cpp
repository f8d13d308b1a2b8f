//===- host_code.cpp - A cpu-target library loaded into the process ------===//

#include "capture/rt/host_code.h"

#include "capture/rt/host_isa.h"
#include "capture/rt/module_desc.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace capture::rt {

/// Whether `bytes` start as a 64-bit little-endian x86-64 ELF shared
/// object: what the dynamic loader would otherwise be handed blind.
static Status checkElf(const std::vector<uint8_t> &bytes) {
  constexpr size_t kHeader = 64;
  if (bytes.size() < kHeader ||
      std::memcmp(bytes.data(), kHostCodeMagic, sizeof(kHostCodeMagic)) != 0)
    return Status::error("the module's host code is not an ELF file (" +
                         std::to_string(bytes.size()) + " bytes)");
  uint16_t type = static_cast<uint16_t>(bytes[16] | (bytes[17] << 8));
  uint16_t machine = static_cast<uint16_t>(bytes[18] | (bytes[19] << 8));
  constexpr uint16_t kShared = 3, kX86_64 = 62;
  if (bytes[4] != 2 || bytes[5] != 1 || type != kShared || machine != kX86_64)
    return Status::error(
        "the module's host code is not an x86-64 ELF shared object (class " +
        std::to_string(bytes[4]) + ", data " + std::to_string(bytes[5]) +
        ", type " + std::to_string(type) + ", machine " +
        std::to_string(machine) + ")");
  return Status::ok();
}

Result<HostCode> HostCode::load(const std::vector<uint8_t> &library,
                                std::string_view isaLevel) {
  if (Status isa = checkHostIsa(isaLevel); isa.isError())
    return isa;
  if (Status elf = checkElf(library); elf.isError())
    return elf;
  int fd = memfd_create("capture-host-code", MFD_CLOEXEC);
  if (fd < 0)
    return Status::error(std::string("cannot create a memory file for the "
                                     "module's host code: ") +
                         std::strerror(errno));
  size_t done = 0;
  while (done < library.size()) {
    ssize_t n = write(fd, library.data() + done, library.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      std::string why = n < 0 ? std::strerror(errno) : "nothing written";
      close(fd);
      return Status::error("cannot write the module's host code to memory: " +
                           why);
    }
    done += static_cast<size_t>(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  // RTLD_LOCAL: two modules' kernels of the same name stay apart. The
  // memory file stays open while the code is loaded: the dynamic loader
  // knows a loaded object by its path, and a closed descriptor's number
  // (so its /proc path) would be reused by the next module's, which would
  // then get the first module's code back.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    close(fd);
    const char *why = dlerror();
    return Status::error(std::string("cannot load the module's host code: ") +
                         (why ? why : "unknown dlopen error"));
  }
  HostCode code;
  code.handle = handle;
  code.fd = fd;
  return code;
}

Result<HostCode::Entry> HostCode::entry(std::string_view kernel) const {
  if (!handle)
    return Status::error("the host code was moved from");
  std::string symbol = std::string(kHostEntryPrefix) + std::string(kernel);
  dlerror();
  void *address = dlsym(handle, symbol.c_str());
  if (!address)
    return Status::error("the module's host code has no entry point for "
                         "kernel '" +
                         std::string(kernel) + "' (expected symbol '" + symbol +
                         "')");
  return reinterpret_cast<Entry>(address);
}

HostCode::HostCode(HostCode &&other) noexcept
    : handle(other.handle), fd(other.fd) {
  other.handle = nullptr;
  other.fd = -1;
}

HostCode &HostCode::operator=(HostCode &&other) noexcept {
  if (this != &other) {
    if (handle)
      dlclose(handle);
    if (fd >= 0)
      close(fd);
    handle = other.handle;
    fd = other.fd;
    other.handle = nullptr;
    other.fd = -1;
  }
  return *this;
}

HostCode::~HostCode() {
  if (handle)
    dlclose(handle);
  if (fd >= 0)
    close(fd);
}

} // namespace capture::rt
