//===- capmod_test.cpp - Reading and writing module files -----------------===//
//
// No device needed: everything here runs before the runtime touches Vulkan.
//
//===----------------------------------------------------------------------===//

#include "capmod_checksum.h"
#include "capmod_generated.h"
#include "capture/rt/capmod.h"
#include "read_error.h"
#include "test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;

namespace {

/// The FlatBuffers part of a written module (its checksum trailer cut off).
std::vector<uint8_t> payloadOf(std::vector<uint8_t> bytes) {
  bytes.resize(bytes.size() - kCapmodTrailerBytes);
  return bytes;
}

/// `payload` with a valid checksum: how a hostile (not a damaged) file
/// looks, to reach the checks behind the checksum.
std::vector<uint8_t> sealed(std::vector<uint8_t> payload) {
  appendCapmodChecksum(payload);
  return payload;
}

TEST(Capmod, RoundTrip) {
  ModuleDesc desc = makeTestModule();
  std::vector<uint8_t> bytes = writeCapmod(desc);
  Result<ModuleDesc> r = readCapmod(bytes.data(), bytes.size());
  ASSERT_TRUE(r.isOk()) << r.message();
  const ModuleDesc &back = r.value();
  EXPECT_EQ(back.formatVersion, kCapmodFormatVersion);
  EXPECT_EQ(back.producer, desc.producer);
  ASSERT_EQ(back.kernels.size(), 2u);
  EXPECT_EQ(back.kernels[1].spirv, desc.kernels[1].spirv);
  EXPECT_EQ(back.kernels[1].name, "mul_0");
  ASSERT_EQ(back.buffers.size(), desc.buffers.size());
  EXPECT_EQ(back.buffers[kScratch].kind, BufferKind::Scratch);
  EXPECT_EQ(back.weights[0].init, desc.weights[0].init);
  EXPECT_EQ(back.constants, desc.constants);
  ASSERT_EQ(back.entries.size(), 3u);
  const EntryDesc &p = back.entries[0];
  EXPECT_EQ(p.name, "predict");
  ASSERT_EQ(p.commands.size(), 4u);
  EXPECT_EQ(p.commands[1].kind, CommandDesc::Kind::Barrier);
  EXPECT_EQ(p.commands[2].dispatch.bindings[1].offset, 256u);
  EXPECT_EQ(p.commands[2].dispatch.writes, std::vector<uint32_t>{2});
  EXPECT_EQ(p.inputs[1].name, "b");
  EXPECT_EQ(p.probes[0].name, "h");
  EXPECT_EQ(back.entries[1].inputs.size(), 0u);
  EXPECT_TRUE(verifyForDevice(back, lavapipeLikeLimits()).isOk());
}

TEST(Capmod, EveryTruncatedPrefixIsACleanError) {
  std::vector<uint8_t> bytes = writeCapmod(makeTestModule());
  // As damaged: no prefix keeps a valid checksum trailer.
  for (size_t n = 0; n < bytes.size(); ++n)
    ASSERT_THAT(readCapmod(bytes.data(), n).message(), HasSubstr("capmod: "))
        << "prefix of " << n;
  EXPECT_THAT(readCapmod(bytes.data(), 5).message(),
              HasSubstr("file too small: 5 bytes"));
  EXPECT_THAT(readCapmod(bytes.data(), bytes.size() / 2).message(),
              HasSubstr("no checksum"));
  // As hostile: every prefix of the FlatBuffers part, resealed, reaches
  // the FlatBuffers verifier.
  std::vector<uint8_t> payload = payloadOf(bytes);
  for (size_t n = 8; n < payload.size(); ++n) {
    std::vector<uint8_t> prefix =
        sealed(std::vector<uint8_t>(payload.begin(), payload.begin() + n));
    Result<ModuleDesc> r = readCapmod(prefix.data(), prefix.size());
    if (r.isOk()) {
      // FlatBuffers has no length field: only trailing alignment padding
      // (after the last string's NUL) can go unnoticed, and then nothing
      // of the content is lost.
      ASSERT_GE(n + 8, payload.size()) << "prefix of " << n << " accepted";
      ASSERT_EQ(writeCapmod(r.value()), bytes) << "prefix of " << n;
      continue;
    }
    ASSERT_THAT(r.message(), HasSubstr("capmod: "));
  }
  std::vector<uint8_t> half = sealed(std::vector<uint8_t>(
      payload.begin(), payload.begin() + payload.size() / 2));
  EXPECT_THAT(readCapmod(half.data(), half.size()).message(),
              HasSubstr("corrupt or truncated"));
}

TEST(Capmod, ChecksumCatchesEveryFlippedByte) {
  std::vector<uint8_t> good = writeCapmod(makeTestModule());
  for (size_t at = 8; at < good.size(); ++at) {
    std::vector<uint8_t> bytes = good;
    bytes[at] ^= 0x10;
    std::string message = readCapmod(bytes.data(), bytes.size()).message();
    ASSERT_THAT(message,
                AnyOf(HasSubstr("checksum mismatch"), HasSubstr("no checksum")))
        << "byte " << at;
  }
  std::vector<uint8_t> bytes = good;
  bytes[good.size() / 2] ^= 1;
  EXPECT_THAT(
      readCapmod(bytes.data(), bytes.size()).message(),
      AllOf(HasSubstr("checksum mismatch: the file's " +
                      std::to_string(good.size() - 12) + " bytes hash to 0x"),
            HasSubstr("(XXH3-64), its trailer says 0x"),
            HasSubstr("damaged after it was written")));
}

TEST(Capmod, MissingChecksumNamesAnOlderFormat) {
  ModuleDesc desc = makeTestModule();
  desc.formatVersion = 3;
  std::vector<uint8_t> old = payloadOf(writeCapmod(desc));
  EXPECT_THAT(readCapmod(old.data(), old.size()).message(),
              AllOf(HasSubstr("no checksum"),
                    HasSubstr("written for format_version 3"),
                    HasSubstr("rebuild it with a matching capture-aot")));
  std::vector<uint8_t> current = payloadOf(writeCapmod(makeTestModule()));
  EXPECT_THAT(readCapmod(current.data(), current.size()).message(),
              HasSubstr("truncated or was not written by capture-aot"));
}

TEST(Capmod, WrongFileIdentifier) {
  std::vector<uint8_t> bytes = writeCapmod(makeTestModule());
  std::memcpy(bytes.data() + 4, "NOPE", 4);
  Result<ModuleDesc> r = readCapmod(bytes.data(), bytes.size());
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(r.message(), AllOf(HasSubstr("file identifier is 'NOPE'"),
                                 HasSubstr("expected 'CAPM'")));
}

TEST(Capmod, OtherFormatVersion) {
  ModuleDesc desc = makeTestModule();
  for (uint32_t version : {1u, 2u, 3u, kCapmodFormatVersion + 1}) {
    desc.formatVersion = version;
    EXPECT_THAT(readError(desc),
                AllOf(HasSubstr("format_version " + std::to_string(version)),
                      HasSubstr("reads format_version " +
                                std::to_string(kCapmodFormatVersion))));
  }
}

TEST(Capmod, OtherFormatVersionWithIncompatibleContent) {
  // A newer file whose tables do not verify against this schema is still
  // reported as a version mismatch.
  ModuleDesc desc = makeTestModule();
  desc.formatVersion = kCapmodFormatVersion + 1;
  std::vector<uint8_t> payload = payloadOf(writeCapmod(desc));
  payload.resize(payload.size() - 64);
  std::vector<uint8_t> bytes = sealed(payload);
  Result<ModuleDesc> r = readCapmod(bytes.data(), bytes.size());
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(r.message(), HasSubstr("unsupported format_version " +
                                     std::to_string(kCapmodFormatVersion + 1)));
}

/// Where `field` points into `payload`, as an offset the test can write at.
template <typename T>
size_t offsetIn(const std::vector<uint8_t> &payload, const T *field) {
  return reinterpret_cast<const uint8_t *>(field) - payload.data();
}

TEST(Capmod, UnknownCommandTypeIsNamed) {
  // The verifier lets unknown union types through (a newer writer's
  // commands); the reader must refuse them, not skip or misread them.
  std::vector<uint8_t> payload = payloadOf(writeCapmod(makeTestModule()));
  const auto *entry =
      capture::capmod::GetModule(payload.data())->entries()->Get(0);
  ASSERT_EQ(entry->name()->str(), "predict");
  const auto *types = entry->commands_type();
  ASSERT_GE(types->size(), 2u);
  ASSERT_EQ(types->Get(1), capture::capmod::Command::Barrier);
  size_t at = offsetIn(payload, types->Data()) + 1;
  for (uint8_t type : {uint8_t{0}, uint8_t{7}}) {
    payload[at] = type;
    std::vector<uint8_t> bytes = sealed(payload);
    Result<ModuleDesc> r = readCapmod(bytes.data(), bytes.size());
    ASSERT_TRUE(r.isError()) << "command type " << unsigned(type);
    EXPECT_THAT(r.message(),
                AllOf(HasSubstr("command 1 of entry 'predict'"),
                      HasSubstr("has command type " + std::to_string(type)),
                      HasSubstr("expected Dispatch (1) or Barrier (2)")));
  }
}

TEST(Capmod, RandomCorruptionNeverCrashes) {
  // Resealed after the damage: a hostile file, past the checksum.
  std::vector<uint8_t> good = payloadOf(writeCapmod(makeTestModule()));
  std::mt19937 rng(1234);
  size_t accepted = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<uint8_t> payload = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f)
      payload[rng() % payload.size()] = static_cast<uint8_t>(rng());
    std::vector<uint8_t> bytes = sealed(payload);
    Result<ModuleDesc> r = readCapmod(bytes.data(), bytes.size());
    if (r.isOk())
      ++accepted; // e.g. a changed float in an initial value
    else
      ASSERT_THAT(r.message(), HasSubstr("capmod: "));
  }
  EXPECT_LT(accepted, 3000u);
}

} // namespace
