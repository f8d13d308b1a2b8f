//===- replay_stream.h - What a replay submits, as data ---------*- C++ -*-===//
//
// A replay submits the input upload copy, a barrier, the entry's schedule
// (dispatches and barriers), a barrier and the output download copy. The
// module verifier checks the schedule alone for hazards; the runtime builds
// this stream for each entry, checks the whole of it with the same sweep
// (the copies modelled as a write of the Input buffer and a read of the
// Output buffer) and only then records its command buffer from it, so what
// is checked is what is recorded. Vulkan-free: part of capture-capmod.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_REPLAY_STREAM_H
#define CAPTURE_RT_REPLAY_STREAM_H

#include "capture/rt/module_desc.h"
#include "capture/rt/status.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace capture::rt {

/// One operation of a replay's command stream.
struct StreamOp {
  /// What the operation does.
  enum class Kind : uint8_t {
    /// Copy of the input staging into the entry's Input buffer: a write of
    /// `range`.
    Upload,
    /// An execution and memory barrier between everything before and after.
    Barrier,
    /// Dispatch `command` of the entry (its bindings and writes).
    Dispatch,
    /// Copy of the entry's Output buffer into the output staging: a read
    /// of `range`.
    Download,
  };
  /// What the operation does.
  Kind kind = Kind::Barrier;
  /// For Dispatch: index into EntryDesc::commands.
  size_t command = 0;
  /// For Upload and Download: the buffer range copied.
  BufferRangeDesc range;
};

/// One buffer range an operation of a barrier-free segment reads or writes.
struct StreamAccess {
  /// Buffer index (any numbering the caller keeps consistent).
  uint32_t buffer = 0;
  /// First byte.
  uint64_t begin = 0;
  /// One past the last byte.
  uint64_t end = 0;
  /// Whether the operation writes the range.
  bool write = false;
  /// Index of the operation (accesses of one operation never conflict).
  size_t op = 0;
};

/// The hazard sweep of one barrier-free segment: a pair of accesses of
/// different operations where one writes a range the other reads or writes
/// (the write first), or none. O(n log n). The module verifier and the
/// compiler's `ag-insert-barriers` both place their barriers by it, so what
/// the compiler emits is what the loader accepts.
std::optional<std::pair<StreamAccess, StreamAccess>>
findSegmentHazard(std::vector<StreamAccess> segment);

/// The schedule of `entry` alone: its commands as Dispatch and Barrier ops.
std::vector<StreamOp> scheduleStream(const EntryDesc &entry);

/// What a replay of `entry` submits: [Upload, Barrier] when it has inputs,
/// the schedule, [Barrier, Download] when it has outputs. The Upload
/// (Download) range is the whole Input (Output) buffer. `entry` must be
/// verified (verifyModuleDesc).
std::vector<StreamOp> replayStream(const ModuleDesc &desc,
                                   const EntryDesc &entry);

/// Checks that between two Barrier ops no operation writes a buffer range
/// another one reads or writes (O(n log n) per barrier-free segment). The
/// error names both operations ("dispatch 3", "the input upload copy", "the
/// output download copy"), the buffer and both ranges. Dispatch indices and
/// ranges must be valid for `desc` (verifyModuleDesc checks them first).
Status checkStreamHazards(const ModuleDesc &desc, const EntryDesc &entry,
                          const std::vector<StreamOp> &stream);

} // namespace capture::rt

#endif // CAPTURE_RT_REPLAY_STREAM_H
