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

#include <cstdlib>
#include <dlfcn.h>
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

CompileCache::CompileCache(std::string dir) : dir_(std::move(dir)) {}

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
  if (const char *dir = std::getenv("CAPTURE_CACHE_DIR"); dir && *dir)
    return CompileCache(dir);
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
  return CompileCache(std::string(path));
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
  return bytes;
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
  if (llvm::sys::fs::rename(temp, entryPath(dir_, key))) {
    llvm::sys::fs::remove(temp);
    return false;
  }
  return true;
}
