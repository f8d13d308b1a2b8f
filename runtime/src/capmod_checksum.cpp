//===- capmod_checksum.cpp - The module file's checksum trailer -----------===//

#include "capmod_checksum.h"

#include <cstdio>
#include <cstring>
#include <string>

// Header-only use: the runtime gains no library to link.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace capture::rt {
namespace {

constexpr char kTag[4] = {'X', 'X', 'H', '3'};

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016llx",
                static_cast<unsigned long long>(v));
  return buf;
}

} // namespace

uint64_t capmodHash(const uint8_t *data, size_t size) {
  return XXH3_64bits(data, size);
}

void appendCapmodChecksum(std::vector<uint8_t> &bytes) {
  uint64_t hash = capmodHash(bytes.data(), bytes.size());
  bytes.insert(bytes.end(), kTag, kTag + 4);
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<uint8_t>(hash >> (8 * i)));
}

Result<size_t> checkCapmodChecksum(const uint8_t *data, size_t size,
                                   uint32_t formatVersion) {
  if (size < kCapmodTrailerBytes ||
      std::memcmp(data + size - kCapmodTrailerBytes, kTag, 4) != 0) {
    std::string why =
        formatVersion != 0 && formatVersion < 4
            ? "it was written for format_version " +
                  std::to_string(formatVersion) +
                  ", before module files had one (rebuild it with a "
                  "matching capture-aot)"
            : "the file is truncated or was not written by capture-aot";
    return Status::error("capmod: no checksum: the last " +
                         std::to_string(kCapmodTrailerBytes) +
                         " bytes are not the 'XXH3' trailer: " + why);
  }
  size_t payload = size - kCapmodTrailerBytes;
  uint64_t stored = 0;
  for (int i = 0; i < 8; ++i)
    stored |= static_cast<uint64_t>(data[payload + 4 + i]) << (8 * i);
  uint64_t actual = capmodHash(data, payload);
  if (stored != actual)
    return Status::error(
        "capmod: checksum mismatch: the file's " + std::to_string(payload) +
        " bytes hash to " + hex64(actual) + " (XXH3-64), its trailer says " +
        hex64(stored) +
        ": the file was damaged after it was written (copy or rebuild it)");
  return payload;
}

} // namespace capture::rt
