//===- replay_stream.cpp - A replay's command stream and its hazards ------===//
//
// One hazard sweep serves both the module verifier (the schedule alone) and
// the loader (the schedule between the two copies): a missing barrier is
// reported the same way wherever it is.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/replay_stream.h"

#include "check_util.h"

#include <algorithm>
#include <tuple>

namespace capture::rt {
namespace {

using Access = StreamAccess;

/// The largest `end` among accesses seen so far, and the largest among
/// those of a different operation than the first, so that "an earlier
/// access of another operation overlaps" is an O(1) question.
struct TopTwo {
  const Access *best = nullptr;  ///< largest end
  const Access *other = nullptr; ///< largest end with op != best's
  void add(const Access &a) {
    if (!best || a.end > best->end) {
      if (best && best->op != a.op)
        other = best;
      best = &a;
    } else if (a.op != best->op && (!other || a.end > other->end)) {
      other = &a;
    }
  }
  /// An access of an operation other than `op` ending after `pos`.
  const Access *overlapping(size_t op, uint64_t pos) const {
    const Access *c = best && best->op != op ? best : other;
    return c && c->end > pos ? c : nullptr;
  }
};

/// "dispatch 3", "the input upload copy", "the output download copy".
std::string opName(const StreamOp &op) {
  switch (op.kind) {
  case StreamOp::Kind::Upload:
    return "the input upload copy";
  case StreamOp::Kind::Download:
    return "the output download copy";
  default:
    return "dispatch " + str(op.command);
  }
}

Status checkSegment(const ModuleDesc &desc, const EntryDesc &entry,
                    const std::vector<StreamOp> &stream,
                    std::vector<Access> &segment) {
  auto hazard = findSegmentHazard(std::move(segment));
  if (!hazard)
    return Status::ok();
  const Access &w = hazard->first, &r = hazard->second;
  return Status::error(
      "capmod: entry '" + entry.name + "': " + opName(stream[w.op]) +
      " writes " + bufferName(desc, w.buffer) + " range " +
      formatRange(w.begin, w.end - w.begin) + ", which " +
      opName(stream[r.op]) + (r.write ? " also writes" : " reads") +
      " in range " + formatRange(r.begin, r.end - r.begin) +
      " with no Barrier between them");
}

} // namespace

std::optional<std::pair<StreamAccess, StreamAccess>>
findSegmentHazard(std::vector<StreamAccess> segment) {
  std::sort(segment.begin(), segment.end(),
            [](const Access &a, const Access &b) {
              return std::tie(a.buffer, a.begin, a.op) <
                     std::tie(b.buffer, b.begin, b.op);
            });
  TopTwo writes, any;
  for (size_t i = 0; i < segment.size(); ++i) {
    const Access &a = segment[i];
    if (i > 0 && segment[i - 1].buffer != a.buffer)
      writes = any = TopTwo();
    const Access *other = a.write ? any.overlapping(a.op, a.begin)
                                  : writes.overlapping(a.op, a.begin);
    if (other)
      return a.write ? std::make_pair(a, *other) : std::make_pair(*other, a);
    if (a.write)
      writes.add(a);
    any.add(a);
  }
  return std::nullopt;
}

std::vector<StreamOp> scheduleStream(const EntryDesc &entry) {
  std::vector<StreamOp> stream;
  stream.reserve(entry.commands.size());
  for (size_t i = 0; i < entry.commands.size(); ++i) {
    StreamOp op;
    op.kind = entry.commands[i].kind == CommandDesc::Kind::Dispatch
                  ? StreamOp::Kind::Dispatch
                  : StreamOp::Kind::Barrier;
    op.command = i;
    stream.push_back(op);
  }
  return stream;
}

std::vector<StreamOp> replayStream(const ModuleDesc &desc,
                                   const EntryDesc &entry) {
  std::vector<StreamOp> stream;
  if (!entry.inputs.empty()) {
    StreamOp up;
    up.kind = StreamOp::Kind::Upload;
    up.range = {entry.inputBuffer, 0, desc.buffers[entry.inputBuffer].size};
    stream.push_back(up);
    stream.push_back(StreamOp());
  }
  std::vector<StreamOp> schedule = scheduleStream(entry);
  stream.insert(stream.end(), schedule.begin(), schedule.end());
  if (!entry.outputs.empty()) {
    stream.push_back(StreamOp());
    StreamOp down;
    down.kind = StreamOp::Kind::Download;
    down.range = {entry.outputBuffer, 0, desc.buffers[entry.outputBuffer].size};
    stream.push_back(down);
  }
  return stream;
}

Status checkStreamHazards(const ModuleDesc &desc, const EntryDesc &entry,
                          const std::vector<StreamOp> &stream) {
  std::vector<Access> segment;
  for (size_t i = 0; i <= stream.size(); ++i) {
    if (i == stream.size() || stream[i].kind == StreamOp::Kind::Barrier) {
      CAPTURE_RT_RETURN_IF_ERROR(checkSegment(desc, entry, stream, segment));
      segment.clear();
      continue;
    }
    const StreamOp &op = stream[i];
    if (op.kind != StreamOp::Kind::Dispatch) {
      const BufferRangeDesc &r = op.range;
      segment.push_back({r.buffer, r.offset, r.offset + r.size,
                         op.kind == StreamOp::Kind::Upload, i});
      continue;
    }
    const DispatchDesc &d = entry.commands[op.command].dispatch;
    std::vector<bool> writes(d.bindings.size(), false);
    for (uint32_t w : d.writes)
      writes[w] = true;
    for (size_t b = 0; b < d.bindings.size(); ++b) {
      const BufferRangeDesc &r = d.bindings[b];
      segment.push_back({r.buffer, r.offset, r.offset + r.size, writes[b], i});
    }
  }
  return Status::ok();
}

} // namespace capture::rt
