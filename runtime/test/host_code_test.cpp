//===- host_code_test.cpp - Loading a module's host code ------------------===//
//
// rt::HostCode loads a cpu-target library from memory and finds its entry
// points; bytes that are not an x86-64 shared object, a library the
// dynamic loader refuses, a missing kernel and an unknown ISA level are
// errors that say so, never a crash. The library here is a C fixture
// linked like the compiler's (-nostdlib), so the runtime's tests need no
// MLIR.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/host_code.h"

#include "gtest/gtest.h"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace capture::rt;

namespace {

std::vector<uint8_t> fixture() {
  std::ifstream file(CAPTURE_RT_TEST_HOSTLIB, std::ios::binary);
  EXPECT_TRUE(file) << CAPTURE_RT_TEST_HOSTLIB;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

/// Runs the fixture's kernel over two workgroups of `code`.
void expectTwice(const HostCode &code) {
  Result<HostCode::Entry> entry = code.entry("twice");
  ASSERT_TRUE(entry.isOk()) << entry.message();
  std::vector<float> in = {0, 1, 2, 3, 4, 5, 6, 7}, out(8, -1.0f);
  void *bindings[] = {in.data(), out.data()};
  for (int64_t group = 0; group < 2; ++group)
    entry.value()(bindings, group, 2);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(out[i], 2.0f * in[i] + 2.0f) << i;
}

TEST(HostCode, LoadsFromMemoryAndRunsAnEntryPoint) {
  Result<HostCode> code = HostCode::load(fixture(), "x86-64");
  ASSERT_TRUE(code.isOk()) << code.message();
  expectTwice(code.value());
}

TEST(HostCode, TwoLoadsAreIndependent) {
  std::vector<uint8_t> bytes = fixture();
  Result<HostCode> first = HostCode::load(bytes, "x86-64");
  ASSERT_TRUE(first.isOk()) << first.message();
  {
    Result<HostCode> second = HostCode::load(bytes, "x86-64");
    ASSERT_TRUE(second.isOk()) << second.message();
    expectTwice(second.value());
    // Two copies, not the first one found again by its path: two modules
    // with kernels of the same names must each run their own code.
    EXPECT_NE(reinterpret_cast<void *>(first.value().entry("twice").value()),
              reinterpret_cast<void *>(second.value().entry("twice").value()));
  }
  // Unloading the second left the first's code in place.
  expectTwice(first.value());
  HostCode moved = std::move(first.value());
  expectTwice(moved);
  Result<HostCode::Entry> gone = first.value().entry("twice");
  ASSERT_TRUE(gone.isError());
  EXPECT_EQ(gone.message(), "the host code was moved from");
}

TEST(HostCode, AMissingKernelIsNamed) {
  Result<HostCode> code = HostCode::load(fixture(), "x86-64");
  ASSERT_TRUE(code.isOk()) << code.message();
  Result<HostCode::Entry> entry = code.value().entry("thrice");
  ASSERT_TRUE(entry.isError());
  EXPECT_EQ(entry.message(), "the module's host code has no entry point for "
                             "kernel 'thrice' (expected symbol "
                             "'capture_k_thrice')");
}

TEST(HostCode, BytesThatAreNotAnX86SharedObjectAreRefused) {
  Result<HostCode> text = HostCode::load({'n', 'o', 't'}, "x86-64");
  ASSERT_TRUE(text.isError());
  EXPECT_EQ(text.message(),
            "the module's host code is not an ELF file (3 bytes)");

  std::vector<uint8_t> arm = fixture();
  ASSERT_GT(arm.size(), 20u);
  arm[18] = 183; // EM_AARCH64
  arm[19] = 0;
  Result<HostCode> wrong = HostCode::load(arm, "x86-64");
  ASSERT_TRUE(wrong.isError());
  EXPECT_EQ(wrong.message(), "the module's host code is not an x86-64 ELF "
                             "shared object (class 2, data 1, type 3, "
                             "machine 183)");

  // A whole header and nothing after it: the dynamic loader's turn.
  std::vector<uint8_t> cut = fixture();
  cut.resize(64);
  Result<HostCode> truncated = HostCode::load(cut, "x86-64");
  ASSERT_TRUE(truncated.isError());
  EXPECT_EQ(
      truncated.message().rfind("cannot load the module's host code: ", 0), 0u)
      << truncated.message();
}

TEST(HostCode, AnUnknownIsaLevelIsRefusedBeforeLoading) {
  Result<HostCode> code = HostCode::load(fixture(), "x86_64-v3");
  ASSERT_TRUE(code.isError());
  EXPECT_NE(code.message().find("unknown host ISA level 'x86_64-v3'"),
            std::string::npos)
      << code.message();
  EXPECT_NE(code.message().find("(did you mean 'x86-64-v3'?)"),
            std::string::npos)
      << code.message();
}

} // namespace
