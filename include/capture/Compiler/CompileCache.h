//===- CompileCache.h - Compiled modules kept between processes -*- C++ -*-===//
//
// The tracer compiles each recording when it is first called; a script run
// again (a training loop started over, a test suite) would compile the same
// module again, seconds for the cpu target. The cache keeps the module files
// on disk keyed by everything that decides their bytes, so only a change to
// the traced code, the options or the compiler compiles again.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_COMPILER_COMPILECACHE_H
#define CAPTURE_COMPILER_COMPILECACHE_H

#include "capture/Pipelines/CompileOptions.h"

#include <string_view>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace capture {

/// A directory of compiled modules. An entry's name is a 128-bit hash of
/// its key: the module's text (locations included: they name the user's
/// lines in errors and profiles), every compile option, and the identity of
/// the compiler (the files holding Capture's compiler, MLIR and LLVM, by
/// path, size and modification time, and LLVM's version): a rebuilt or
/// upgraded compiler never reads an older one's output. A hit is read back
/// as any module file is (format and checksum); an entry that fails that is
/// removed and compiled again. Storing is best effort (a directory that
/// cannot be written is a cache that always misses). The directory's
/// entries are bounded in bytes: a store removes the least recently used
/// ones (a hit makes an entry recent) past the bound, and temporary files
/// a writer left over an hour ago.
class CompileCache {
public:
  /// The bound a cache has unless told otherwise: room for thousands of
  /// recordings (a CartPole update's module is about 100 KB).
  static constexpr uint64_t kDefaultMaxBytes = uint64_t(512) << 20;

  /// No cache: every lookup misses, nothing is stored.
  CompileCache() = default;
  /// The cache in `dir` (created when first stored to), holding at most
  /// `maxBytes` of entries (the entry just stored is kept whatever its
  /// size).
  explicit CompileCache(std::string dir, uint64_t maxBytes = kDefaultMaxBytes);

  /// The cache the environment chooses: CAPTURE_CACHE=0 (or off, false,
  /// no) disables it; else CAPTURE_CACHE_DIR, else $XDG_CACHE_HOME/capture,
  /// else $HOME/.cache/capture; none where none of these is set, or where
  /// the compiler's identity cannot be found. CAPTURE_CACHE_MAX_MB bounds
  /// it (whole MiB, at least 1; another value is reported on stderr, once,
  /// and the default kept).
  static CompileCache fromEnvironment();

  /// Whether lookups can hit.
  bool enabled() const { return !dir_.empty(); }
  /// The directory ("" when disabled).
  const std::string &dir() const { return dir_; }
  /// The most bytes its entries hold after a store.
  uint64_t maxBytes() const { return maxBytes_; }

  /// The entry name of a compile of `moduleText` with `options` (32 hex
  /// digits), or "" when the compiler's identity is unknown.
  static std::string keyOf(std::string_view moduleText,
                           const CompileOptions &options);

  /// The module file stored under `key`, checked as the loader checks one;
  /// nullopt when there is none or it is unreadable (then removed). A hit
  /// makes the entry the most recently used.
  std::optional<std::vector<uint8_t>> find(const std::string &key) const;
  /// Stores `bytes` under `key` (a temporary file renamed into place, so a
  /// reader never sees half an entry), then trims the directory to
  /// maxBytes(); returns false where it could not store.
  bool store(const std::string &key, const std::vector<uint8_t> &bytes) const;

private:
  /// Removes the least recently used entries but `keep` past maxBytes_,
  /// and stale temporary files.
  void trim(const std::string &keep) const;

  /// Where the entries live.
  std::string dir_;
  /// The bound of the entries' bytes.
  uint64_t maxBytes_ = kDefaultMaxBytes;
};

} // namespace capture

#endif // CAPTURE_COMPILER_COMPILECACHE_H
