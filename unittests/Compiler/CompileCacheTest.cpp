//===- CompileCacheTest.cpp - Compiled modules kept between processes -----===//
//
// capture::CompileCache: the key changes with the text, with every option
// and not otherwise; entries round-trip; a damaged entry is a miss and is
// removed; the least recently used entries go past the size bound; the
// environment chooses the directory and the bound, or turns the cache off.
//
//===----------------------------------------------------------------------===//

#include "capture/Compiler/CompileCache.h"
#include "capture/Compiler/Compiler.h"
#include "capture/InitAll.h"
#include "test_env.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <sys/stat.h>

using capture::CompileCache;
using capture::CompileOptions;

namespace {

constexpr const char *kModule = R"mlir(
ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %y = ag.exp %x : tensor<4xf32>
  ag.return %y : tensor<4xf32>
}
)mlir";

/// The bytes of kModule compiled with default options.
std::vector<uint8_t> compiled() {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  capture::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(kModule),
                             llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      capture::parseModule(sources, &context);
  if (!module)
    return {};
  mlir::FailureOr<std::vector<uint8_t>> bytes =
      capture::compileToCapmod(*module, CompileOptions());
  return mlir::succeeded(bytes) ? *bytes : std::vector<uint8_t>();
}

/// A fresh directory for one test, removed after it.
struct CompileCacheDir : ::testing::Test {
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("capture-cache", path));
    dir = std::string(path);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  std::string entry(const std::string &key) const {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, key + ".capmod");
    return std::string(path);
  }
  std::string dir;
};

using capture::rt::test::ScopedEnv;

TEST(CompileCache, TheKeyFollowsTheTextAndEveryOption) {
  std::string base = CompileCache::keyOf(kModule, CompileOptions());
  ASSERT_EQ(base.size(), 32u) << "the compiler's identity was not found";
  EXPECT_EQ(CompileCache::keyOf(kModule, CompileOptions()), base);
  std::set<std::string> keys = {base};
  keys.insert(CompileCache::keyOf(std::string(kModule) + " ", {}));
  // One changed option at a time, each from CompileOptions.def.
  CompileOptions o;
  o.target = "cpu";
  keys.insert(CompileCache::keyOf(kModule, o));
  o = {};
  o.alignment = 512;
  keys.insert(CompileCache::keyOf(kModule, o));
  o = {};
  o.workgroupSize = 32;
  keys.insert(CompileCache::keyOf(kModule, o));
  o = {};
  o.fuse = false;
  keys.insert(CompileCache::keyOf(kModule, o));
  o = {};
  o.tileShuffles = false;
  keys.insert(CompileCache::keyOf(kModule, o));
  o = {};
  o.minMatmulWorkgroups = 0;
  keys.insert(CompileCache::keyOf(kModule, o));
  EXPECT_EQ(keys.size(), 8u) << "two different compiles share a key";
}

TEST_F(CompileCacheDir, AnEntryRoundTrips) {
  std::vector<uint8_t> bytes = compiled();
  ASSERT_FALSE(bytes.empty());
  CompileCache cache(dir);
  ASSERT_TRUE(cache.enabled());
  std::string key = CompileCache::keyOf(kModule, CompileOptions());
  EXPECT_FALSE(cache.find(key).has_value());
  ASSERT_TRUE(cache.store(key, bytes));
  std::optional<std::vector<uint8_t>> back = cache.find(key);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, bytes);
  // No temporary file is left beside the entry.
  std::error_code ec;
  int files = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    ++files;
  EXPECT_EQ(files, 1);
}

TEST_F(CompileCacheDir, ADamagedEntryIsAMissAndIsRemoved) {
  std::vector<uint8_t> bytes = compiled();
  ASSERT_FALSE(bytes.empty());
  CompileCache cache(dir);
  std::string key = CompileCache::keyOf(kModule, CompileOptions());
  ASSERT_TRUE(cache.store(key, bytes));
  // One flipped byte: the checksum refuses it.
  {
    std::fstream f(entry(key), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(bytes.size() / 2));
    char c = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
    f.write(&c, 1);
  }
  EXPECT_FALSE(cache.find(key).has_value());
  EXPECT_FALSE(llvm::sys::fs::exists(entry(key)));
  // Cut short: the same.
  ASSERT_TRUE(cache.store(key, bytes));
  std::ofstream(entry(key), std::ios::binary)
      .write(reinterpret_cast<const char *>(bytes.data()),
             static_cast<std::streamsize>(bytes.size() / 3));
  EXPECT_FALSE(cache.find(key).has_value());
  EXPECT_FALSE(llvm::sys::fs::exists(entry(key)));
}

/// Sets `path`'s modification time to `secondsAgo` before now.
void usedAgo(const std::string &path, int secondsAgo) {
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = ::time(nullptr) - secondsAgo;
  times[0].tv_nsec = times[1].tv_nsec = 0;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

TEST_F(CompileCacheDir, TheLeastRecentlyUsedEntriesGoPastTheBound) {
  std::vector<uint8_t> bytes = compiled();
  ASSERT_FALSE(bytes.empty());
  // Room for three entries.
  CompileCache cache(dir, 3 * bytes.size() + bytes.size() / 2);
  for (int i = 0; i < 3; ++i) {
    std::string key = "entry" + std::to_string(i);
    ASSERT_TRUE(cache.store(key, bytes));
    usedAgo(entry(key), 300 - 10 * i); // entry0 the oldest
  }
  // A hit makes entry0 the most recent: entry1 goes when entry3 comes.
  ASSERT_TRUE(cache.find("entry0").has_value());
  ASSERT_TRUE(cache.store("entry3", bytes));
  EXPECT_TRUE(llvm::sys::fs::exists(entry("entry0")));
  EXPECT_FALSE(llvm::sys::fs::exists(entry("entry1")));
  EXPECT_TRUE(llvm::sys::fs::exists(entry("entry2")));
  EXPECT_TRUE(llvm::sys::fs::exists(entry("entry3")));
  // A temporary file a writer left an hour ago goes; a fresh one stays.
  std::string stale = entry("entry9") + ".abc123.tmp";
  std::string fresh = entry("entry8") + ".def456.tmp";
  std::ofstream(stale) << "half";
  std::ofstream(fresh) << "half";
  usedAgo(stale, 3700);
  ASSERT_TRUE(cache.store("entry3", bytes));
  EXPECT_FALSE(llvm::sys::fs::exists(stale));
  EXPECT_TRUE(llvm::sys::fs::exists(fresh));
  // A bound below one entry keeps the entry just stored, alone.
  CompileCache tiny(dir, 1);
  ASSERT_TRUE(tiny.store("entry4", bytes));
  EXPECT_TRUE(tiny.find("entry4").has_value());
  for (const char *gone : {"entry0", "entry2", "entry3"})
    EXPECT_FALSE(llvm::sys::fs::exists(entry(gone))) << gone;
}

TEST_F(CompileCacheDir, NoCacheStoresNothing) {
  CompileCache none;
  EXPECT_FALSE(none.enabled());
  EXPECT_FALSE(none.store("0123", {1, 2, 3}));
  EXPECT_FALSE(none.find("0123").has_value());
  // A directory that cannot be made: storing fails, nothing throws.
  CompileCache blocked(entry("not-a-dir") + "/below");
  std::ofstream(entry("not-a-dir")) << "a file";
  EXPECT_FALSE(blocked.store("0123", compiled()));
}

TEST(CompileCache, TheEnvironmentChoosesTheDirectory) {
  ScopedEnv off("CAPTURE_CACHE", std::nullopt),
      dir("CAPTURE_CACHE_DIR", std::nullopt),
      xdg("XDG_CACHE_HOME", std::nullopt), home("HOME", "/home/someone");
  EXPECT_EQ(CompileCache::fromEnvironment().dir(),
            "/home/someone/.cache/capture");
  {
    ScopedEnv x("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(CompileCache::fromEnvironment().dir(), "/xdg/capture");
    ScopedEnv d("CAPTURE_CACHE_DIR", "/somewhere");
    EXPECT_EQ(CompileCache::fromEnvironment().dir(), "/somewhere");
    for (const char *no : {"0", "off", "OFF", "false", "no"}) {
      ScopedEnv o("CAPTURE_CACHE", no);
      EXPECT_FALSE(CompileCache::fromEnvironment().enabled()) << no;
    }
    ScopedEnv on("CAPTURE_CACHE", "1");
    EXPECT_EQ(CompileCache::fromEnvironment().dir(), "/somewhere");
  }
  ScopedEnv nohome("HOME", std::nullopt);
  EXPECT_FALSE(CompileCache::fromEnvironment().enabled());
}

TEST(CompileCache, TheEnvironmentBoundsItsSize) {
  ScopedEnv off("CAPTURE_CACHE", std::nullopt),
      dir("CAPTURE_CACHE_DIR", "/somewhere"),
      max("CAPTURE_CACHE_MAX_MB", std::nullopt);
  EXPECT_EQ(CompileCache::fromEnvironment().maxBytes(),
            CompileCache::kDefaultMaxBytes);
  {
    ScopedEnv m("CAPTURE_CACHE_MAX_MB", "64");
    EXPECT_EQ(CompileCache::fromEnvironment().maxBytes(), uint64_t(64) << 20);
  }
  // Not a count of MiB: the default (and a line on stderr).
  for (const char *bad : {"0", "-5", "64MB", "", "2000000"}) {
    ScopedEnv m("CAPTURE_CACHE_MAX_MB", bad);
    EXPECT_EQ(CompileCache::fromEnvironment().maxBytes(),
              CompileCache::kDefaultMaxBytes)
        << bad;
  }
}

} // namespace
