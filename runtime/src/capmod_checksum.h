//===- capmod_checksum.h - The module file's checksum trailer ---*- C++ -*-===//
//
// A module file is its FlatBuffers bytes followed by a 12-byte trailer: the
// tag "XXH3" and the XXH3-64 hash of every byte before the trailer, little
// endian. The reader checks it before it looks at anything else, so a file
// damaged in transit or on disk is refused as such instead of being parsed
// into a module that replays with different numbers.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_CAPMOD_CHECKSUM_H
#define CAPTURE_RT_CAPMOD_CHECKSUM_H

#include "capture/rt/status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace capture::rt {

/// Bytes of the trailer: 4 of tag, 8 of hash.
constexpr size_t kCapmodTrailerBytes = 12;

/// The XXH3-64 hash of `size` bytes at `data`.
uint64_t capmodHash(const uint8_t *data, size_t size);

/// Appends the trailer for the bytes already in `bytes`.
void appendCapmodChecksum(std::vector<uint8_t> &bytes);

/// Checks the trailer of the `size`-byte file at `data`; on success returns
/// the size of the FlatBuffers part before it. `formatVersion`, when the
/// trailer is missing, is the version peeked from the file (0 if unknown),
/// to tell an old file from a damaged one.
Result<size_t> checkCapmodChecksum(const uint8_t *data, size_t size,
                                   uint32_t formatVersion);

} // namespace capture::rt

#endif // CAPTURE_RT_CAPMOD_CHECKSUM_H
