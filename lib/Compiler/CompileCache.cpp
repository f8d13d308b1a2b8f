//===- CompileCache.cpp - Compiled modules kept between processes ---------===//

#include "capture/Compiler/CompileCache.h"

#include "capture/Compiler/Compiler.h"
#include "capture/rt/capmod.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>

using namespace capture;

/// Bumped when the entries' layout or the key's makeup changes.
static constexpr const char *kCacheFormat = "capture-compile-cache 1";

/// "path:size:mtime" of the file whose code holds `symbol`, or "" when it
/// cannot be found.
static std::string fileOf(const void *symbol) {
  Dl_info info;
  if (!dladdr(symbol, &info) || !info.dli_fname)
    return "";
  struct stat st;
  if (::stat(info.dli_fname, &st) != 0)
    return "";
  return std::string(info.dli_fname) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

/// What identifies the compiler of this process, or "" when unknown.
static const std::string &compilerIdentity() {
  static const std::string identity = [] {
    auto mlirSymbol = static_cast<mlir::InFlightDiagnostic (*)(mlir::Location)>(
        &mlir::emitError);
    std::string parts[] = {
        fileOf(reinterpret_cast<const void *>(&compileToCapmod)),
        fileOf(reinterpret_cast<const void *>(mlirSymbol)),
        fileOf(reinterpret_cast<const void *>(&llvm::sys::getProcessTriple))};
    std::string all =
        std::string(kCacheFormat) + "\nLLVM " + LLVM_VERSION_STRING + "\n";
    for (const std::string &part : parts) {
      if (part.empty())
        return std::string();
      all += part + "\n";
    }
    return all;
  }();
  return identity;
}

CompileCache::CompileCache(std::string dir, uint64_t maxBytes)
    : dir_(std::move(dir)), maxBytes_(maxBytes) {}

/// CAPTURE_CACHE_MAX_MB in bytes; the default, reported once on stderr,
/// for a value that is not a whole number of MiB from 1 to 2^20.
static uint64_t maxBytesFromEnvironment() {
  const char *text = std::getenv("CAPTURE_CACHE_MAX_MB");
  if (!text)
    return CompileCache::kDefaultMaxBytes;
  uint64_t mib = 0;
  if (!llvm::StringRef(text).getAsInteger(10, mib) && mib >= 1 &&
      mib <= (uint64_t(1) << 20))
    return mib << 20;
  static bool reported = false;
  if (!reported)
    llvm::errs() << "capture: CAPTURE_CACHE_MAX_MB is '" << text
                 << "', expected a whole number of MiB from 1 to 1048576; "
                    "the compile cache keeps its default bound of "
                 << (CompileCache::kDefaultMaxBytes >> 20) << " MiB\n";
  reported = true;
  return CompileCache::kDefaultMaxBytes;
}

/// Whether an environment value says no.
static bool isOff(llvm::StringRef value) {
  std::string v = value.lower();
  return v == "0" || v == "off" || v == "false" || v == "no";
}

CompileCache CompileCache::fromEnvironment() {
  if (const char *on = std::getenv("CAPTURE_CACHE"); on && isOff(on))
    return CompileCache();
  if (compilerIdentity().empty())
    return CompileCache();
  uint64_t maxBytes = maxBytesFromEnvironment();
  if (const char *dir = std::getenv("CAPTURE_CACHE_DIR"); dir && *dir)
    return CompileCache(dir, maxBytes);
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    path = xdg;
  } else if (const char *home = std::getenv("HOME"); home && *home) {
    path = home;
    llvm::sys::path::append(path, ".cache");
  } else {
    return CompileCache();
  }
  llvm::sys::path::append(path, "capture");
  return CompileCache(std::string(path), maxBytes);
}

std::string CompileCache::keyOf(std::string_view moduleText,
                                const CompileOptions &options) {
  const std::string &identity = compilerIdentity();
  if (identity.empty())
    return "";
  std::string material;
  llvm::raw_string_ostream os(material);
  os << identity;
  // Every option, from the one list of them: a new option joins the key.
#define CAPTURE_COMPILE_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)               \
  os << FLAG << "=" << options.FIELD << "\n";
#include "capture/Pipelines/CompileOptions.def"
  os << moduleText;
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(material.data()), material.size()));
  std::string key;
  llvm::raw_string_ostream out(key);
  out << llvm::format_hex_no_prefix(hash.high64, 16)
      << llvm::format_hex_no_prefix(hash.low64, 16);
  return key;
}

/// The entry file of `key` in `dir`.
static std::string entryPath(const std::string &dir, const std::string &key) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, key + ".capmod");
  return std::string(path);
}

std::optional<std::vector<uint8_t>>
CompileCache::find(const std::string &key) const {
  if (!enabled() || key.empty())
    return std::nullopt;
  std::string path = entryPath(dir_, key);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return std::nullopt;
  llvm::StringRef data = (*file)->getBuffer();
  std::vector<uint8_t> bytes(data.begin(), data.end());
  if (rt::readCapmod(bytes.data(), bytes.size()).isError()) {
    llvm::sys::fs::remove(path);
    return std::nullopt;
  }
  // The modification time is the entry's last use (trim keeps the recent).
  (void)::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  return bytes;
}

/// A file's modification time, in nanoseconds since the epoch.
static int64_t modifiedNs(const struct stat &st) {
  return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

void CompileCache::trim(const std::string &keep) const {
  struct Entry {
    std::string path; // the entry's file
    uint64_t size;    // its bytes
    int64_t usedNs;   // its last use (modification time)
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  int64_t staleNs = int64_t(::time(nullptr) - 3600) * 1000000000;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir_, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    struct stat st;
    if (::stat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (name.ends_with(".tmp")) {
      // A writer that died between its write and its rename.
      if (modifiedNs(st) < staleNs)
        llvm::sys::fs::remove(it->path());
      continue;
    }
    if (!name.ends_with(".capmod"))
      continue;
    entries.push_back({it->path(), uint64_t(st.st_size), modifiedNs(st)});
    total += uint64_t(st.st_size);
  }
  if (total <= maxBytes_)
    return;
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.usedNs < b.usedNs; });
  for (const Entry &e : entries) {
    if (total <= maxBytes_)
      break;
    if (e.path == keep)
      continue;
    // Another process may have removed it already: it is gone either way.
    llvm::sys::fs::remove(e.path);
    total -= e.size;
  }
}

bool CompileCache::store(const std::string &key,
                         const std::vector<uint8_t> &bytes) const {
  if (!enabled() || key.empty())
    return false;
  if (llvm::sys::fs::create_directories(dir_))
    return false;
  llvm::SmallString<256> temp;
  int fd;
  if (llvm::sys::fs::createUniqueFile(entryPath(dir_, key) + ".%%%%%%.tmp", fd,
                                      temp))
    return false;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    os.close();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return false;
    }
  }
  std::string path = entryPath(dir_, key);
  if (llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return false;
  }
  trim(path);
  return true;
}
