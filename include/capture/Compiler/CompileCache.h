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
/// cannot be written is a cache that always misses).
class CompileCache {
public:
  /// No cache: every lookup misses, nothing is stored.
  CompileCache() = default;
  /// The cache in `dir` (created when first stored to).
  explicit CompileCache(std::string dir);

  /// The cache the environment chooses: CAPTURE_CACHE=0 (or off, false,
  /// no) disables it; else CAPTURE_CACHE_DIR, else $XDG_CACHE_HOME/capture,
  /// else $HOME/.cache/capture; none where none of these is set, or where
  /// the compiler's identity cannot be found.
  static CompileCache fromEnvironment();

  /// Whether lookups can hit.
  bool enabled() const { return !dir_.empty(); }
  /// The directory ("" when disabled).
  const std::string &dir() const { return dir_; }

  /// The entry name of a compile of `moduleText` with `options` (32 hex
  /// digits), or "" when the compiler's identity is unknown.
  static std::string keyOf(std::string_view moduleText,
                           const CompileOptions &options);

  /// The module file stored under `key`, checked as the loader checks one;
  /// nullopt when there is none or it is unreadable (then removed).
  std::optional<std::vector<uint8_t>> find(const std::string &key) const;
  /// Stores `bytes` under `key` (a temporary file renamed into place, so a
  /// reader never sees half an entry); returns false where it could not.
  bool store(const std::string &key, const std::vector<uint8_t> &bytes) const;

private:
  /// Where the entries live.
  std::string dir_;
};

} // namespace capture

#endif // CAPTURE_COMPILER_COMPILECACHE_H
