//===- census.cpp - Counting a module's contents; an entry's schedule -----===//
//
// Reads only the ModuleDesc, so `capture-run --info` needs no device. The
// bounds are checked here again, not assumed, because a census is also how
// one looks at a module the verifier refuses.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/census.h"

#include "capture/rt/suggest.h"

#include <algorithm>

namespace capture::rt {
namespace {

/// "1 barrier", "2 barriers", "3 dispatches".
std::string plural(uint64_t n, const char *one, const char *many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// "WHERE: WHAT index I is out of range, expected < COUNT".
Status indexError(const std::string &where, const char *what, uint64_t index,
                  size_t count) {
  return Status::error(where + ": " + what + " index " + std::to_string(index) +
                       " is out of range, expected < " + std::to_string(count));
}

/// Checks every index a census or a graph follows in entry `e`.
Status checkEntryIndices(const ModuleDesc &desc, const EntryDesc &e) {
  std::string where = "entry '" + e.name + "'";
  if (!e.inputs.empty() && e.inputBuffer >= desc.buffers.size())
    return indexError(where, "input buffer", e.inputBuffer,
                      desc.buffers.size());
  if (!e.outputs.empty() && e.outputBuffer >= desc.buffers.size())
    return indexError(where, "output buffer", e.outputBuffer,
                      desc.buffers.size());
  for (size_t i = 0; i < e.commands.size(); ++i) {
    if (e.commands[i].kind != CommandDesc::Kind::Dispatch)
      continue;
    const DispatchDesc &d = e.commands[i].dispatch;
    std::string at = where + ", command " + std::to_string(i);
    if (d.kernel >= desc.kernels.size())
      return indexError(at, "kernel", d.kernel, desc.kernels.size());
    for (const BufferRangeDesc &b : d.bindings)
      if (b.buffer >= desc.buffers.size())
        return indexError(at, "binding buffer", b.buffer, desc.buffers.size());
    for (uint32_t w : d.writes)
      if (w >= d.bindings.size())
        return indexError(at, "written binding", w, d.bindings.size());
  }
  return Status::ok();
}

/// The names of the tensors occupying exactly `r` (for a texel binding,
/// `r` less the padding of its last texel): the entry's inputs, outputs
/// and probes and the module's weights.
std::string namesAt(const ModuleDesc &desc, const EntryDesc &e,
                    const BufferRangeDesc &r, bool texel) {
  std::vector<std::string> names;
  auto fits = [&](uint64_t offset, uint64_t size) {
    if (offset != r.offset)
      return false;
    if (!texel)
      return size == r.size;
    return size <= r.size && r.size - size < kRgba32fTexelBytes;
  };
  auto match = [&](const std::vector<TensorSlotDesc> &slots) {
    for (const TensorSlotDesc &s : slots)
      if (s.buffer == r.buffer && fits(s.offset, s.size))
        names.push_back(s.name);
  };
  match(e.inputs);
  match(e.outputs);
  match(e.probes);
  if (desc.weightsBuffer >= 0 &&
      r.buffer == static_cast<uint32_t>(desc.weightsBuffer))
    for (const WeightDesc &w : desc.weights)
      if (fits(w.offset, w.size))
        names.push_back(w.name);
  std::string s;
  for (const std::string &n : names)
    s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? s : " (" + s + ")";
}

} // namespace

/// Fills ec.scratchBytes and ec.scratchLiveBytes from the entry's
/// schedule (indices already checked).
static void scratchLiveness(const ModuleDesc &desc, const EntryDesc &e,
                            EntryCensus &ec) {
  /// One value in scratch: a written range and the dispatches it lives in.
  struct Value {
    uint32_t buffer;
    uint64_t begin, end;
    size_t first, last;
    bool overwritten;
  };
  std::vector<Value> values;
  std::vector<uint32_t> buffers;
  size_t d = 0;
  for (const CommandDesc &cmd : e.commands) {
    if (cmd.kind != CommandDesc::Kind::Dispatch)
      continue;
    const DispatchDesc &dispatch = cmd.dispatch;
    auto isWrite = [&](size_t b) {
      return std::find(dispatch.writes.begin(), dispatch.writes.end(), b) !=
             dispatch.writes.end();
    };
    auto overlaps = [](const Value &v, const BufferRangeDesc &r) {
      return v.buffer == r.buffer && v.begin < r.offset + r.size &&
             r.offset < v.end;
    };
    // Reads first (a dispatch may update a range in place), then writes.
    for (int pass = 0; pass < 2; ++pass)
      for (size_t b = 0; b < dispatch.bindings.size(); ++b) {
        const BufferRangeDesc &r = dispatch.bindings[b];
        if (desc.buffers[r.buffer].kind != BufferKind::Scratch ||
            isWrite(b) != (pass == 1))
          continue;
        if (std::find(buffers.begin(), buffers.end(), r.buffer) ==
            buffers.end())
          buffers.push_back(r.buffer);
        for (Value &v : values)
          if (!v.overwritten && overlaps(v, r)) {
            if (pass == 0)
              v.last = d;
            else
              v.overwritten = true;
          }
        if (pass == 1)
          values.push_back(
              {r.buffer, r.offset, r.offset + r.size, d, d, false});
      }
    ++d;
  }
  for (uint32_t b : buffers)
    ec.scratchBytes += desc.buffers[b].size;
  for (size_t at = 0; at < d; ++at) {
    uint64_t live = 0;
    for (const Value &v : values)
      if (v.first <= at && at <= v.last)
        live += v.end - v.begin;
    ec.scratchLiveBytes = std::max(ec.scratchLiveBytes, live);
  }
}

Result<ModuleCensus> moduleCensus(const ModuleDesc &desc) {
  ModuleCensus c;
  c.producer = desc.producer;
  c.formatVersion = desc.formatVersion;
  c.vulkanApiVersion = desc.target.vulkanApiVersion;
  c.bindingAlignment = desc.target.bindingAlignment;
  for (const KernelDesc &k : desc.kernels) {
    KernelCensus kc;
    kc.name = k.name;
    kc.numBindings = k.numBindings;
    for (BindingKind kind : k.bindingKinds)
      kc.texelBindings += kind == BindingKind::TexelBufferRgba32f;
    kc.workgroupSize = k.workgroupSize;
    kc.spirvBytes = k.spirv.size() * sizeof(uint32_t);
    kc.loopIterations = k.loopIterations;
    kc.subgroupMultiple = k.subgroupMultiple;
    c.kernels.push_back(std::move(kc));
  }
  for (const EntryDesc &e : desc.entries) {
    CAPTURE_RT_RETURN_IF_ERROR(checkEntryIndices(desc, e));
    EntryCensus ec;
    scratchLiveness(desc, e, ec);
    ec.name = e.name;
    ec.kind = e.kind;
    ec.inputs = e.inputs.size();
    ec.outputs = e.outputs.size();
    ec.probes = e.probes.size();
    ec.inputBytes = e.inputs.empty() ? 0 : desc.buffers[e.inputBuffer].size;
    ec.outputBytes = e.outputs.empty() ? 0 : desc.buffers[e.outputBuffer].size;
    std::vector<uint32_t> used;
    for (const CommandDesc &cmd : e.commands) {
      if (cmd.kind == CommandDesc::Kind::Barrier) {
        ++ec.barriers;
        continue;
      }
      ++ec.dispatches;
      ++c.kernels[cmd.dispatch.kernel].dispatches;
      if (std::find(used.begin(), used.end(), cmd.dispatch.kernel) ==
          used.end())
        used.push_back(cmd.dispatch.kernel);
      uint64_t groups = 1;
      bool overflow = false;
      for (uint32_t g : cmd.dispatch.groups)
        overflow |= __builtin_mul_overflow(groups, g, &groups);
      overflow |= __builtin_add_overflow(ec.workgroups, groups, &ec.workgroups);
      // A hint from the file: saturated rather than refused.
      if (__builtin_add_overflow(ec.work, cmd.dispatch.work, &ec.work))
        ec.work = UINT64_MAX;
      if (overflow)
        return Status::error("entry '" + e.name +
                             "': the workgroup count overflows 64 bits, "
                             "expected at most 2^64 - 1");
    }
    ec.kernels = used.size();
    c.entries.push_back(std::move(ec));
  }
  for (const BufferDesc &b : desc.buffers) {
    auto it = std::find_if(
        c.buffers.begin(), c.buffers.end(),
        [&](const BufferKindCensus &k) { return k.kind == b.kind; });
    if (it == c.buffers.end()) {
      c.buffers.push_back({b.kind, 0, 0});
      it = c.buffers.end() - 1;
    }
    ++it->buffers;
    // Sizes are below 2^64 each but may sum past it in a hostile file.
    if (__builtin_add_overflow(it->bytes, b.size, &it->bytes) ||
        __builtin_add_overflow(c.bufferBytes, b.size, &c.bufferBytes))
      return Status::error("the buffer sizes sum past 2^64 - 1 bytes, "
                           "expected a total that fits 64 bits");
  }
  std::sort(c.buffers.begin(), c.buffers.end(),
            [](const BufferKindCensus &a, const BufferKindCensus &b) {
              return a.kind < b.kind;
            });
  if (desc.hostCode) {
    c.hostCodeBytes = desc.hostCode->library.size();
    c.hostIsaLevel = desc.hostCode->isaLevel;
  }
  for (const WeightDesc &w : desc.weights) {
    ++c.weights;
    c.trainableWeights += w.trainable;
    c.unsetWeights += !w.init && !w.initializer;
    if (__builtin_add_overflow(c.weightBytes, w.size, &c.weightBytes))
      return Status::error("the weight sizes sum past 2^64 - 1 bytes, "
                           "expected a total that fits 64 bits");
  }
  return c;
}

/// " [3, 4]": the shape kernel `k` binds at `binding`, when the file says.
static std::string shapeOf(const KernelDesc &k, size_t binding) {
  if (binding >= k.bindingShapes.size())
    return "";
  std::string text;
  for (int64_t dim : k.bindingShapes[binding])
    text += (text.empty() ? "" : ", ") + std::to_string(dim);
  return " [" + text + "]";
}

Result<std::string> formatEntryGraph(const ModuleDesc &desc,
                                     std::string_view entryName) {
  const EntryDesc *entry = nullptr;
  std::string names;
  for (const EntryDesc &e : desc.entries) {
    names += (names.empty() ? "'" : ", '") + e.name + "'";
    if (e.name == entryName)
      entry = &e;
  }
  if (!entry)
    return Status::error(
        "unknown entry '" + std::string(entryName) + "'" +
        suggestNameIn(entryName, desc.entries) +
        "; the module has entries: " + (names.empty() ? "none" : names));
  const EntryDesc &e = *entry;
  CAPTURE_RT_RETURN_IF_ERROR(checkEntryIndices(desc, e));
  uint64_t dispatches = 0, barriers = 0;
  std::string body;
  // Every write so far, to name the producer of each read: the latest
  // earlier dispatch that wrote an overlapping range of the same buffer.
  struct Written {
    BufferRangeDesc range; // what it wrote
    uint64_t dispatch;     // which dispatch
  };
  std::vector<Written> written;
  auto producerOf = [&](const BufferRangeDesc &r) -> std::string {
    for (auto it = written.rbegin(); it != written.rend(); ++it)
      if (it->range.buffer == r.buffer &&
          it->range.offset < r.offset + r.size &&
          r.offset < it->range.offset + it->range.size)
        return " <- d" + std::to_string(it->dispatch);
    return "";
  };
  for (const CommandDesc &c : e.commands) {
    if (c.kind == CommandDesc::Kind::Barrier) {
      ++barriers;
      body += "  barrier\n";
      continue;
    }
    const DispatchDesc &d = c.dispatch;
    std::string groups;
    for (uint32_t g : d.groups)
      groups += (groups.empty() ? "" : "x") + std::to_string(g);
    uint64_t index = dispatches++;
    body += "  d" + std::to_string(index) + " " + desc.kernels[d.kernel].name +
            " groups " + groups + ":";
    for (size_t b = 0; b < d.bindings.size(); ++b) {
      const BufferRangeDesc &r = d.bindings[b];
      bool writes =
          std::find(d.writes.begin(), d.writes.end(), b) != d.writes.end();
      bool texel = bindingKindOf(desc.kernels[d.kernel], b) ==
                   BindingKind::TexelBufferRgba32f;
      body += std::string(b ? ", " : " ") + (writes ? "write" : "read") +
              (texel ? " texel" : "") + " b" + std::to_string(r.buffer) + ":" +
              bufferKindName(desc.buffers[r.buffer].kind) + "[" +
              std::to_string(r.offset) + "," +
              std::to_string(r.offset + r.size) + ")" +
              shapeOf(desc.kernels[d.kernel], b) + namesAt(desc, e, r, texel) +
              (writes ? "" : producerOf(r));
    }
    for (uint32_t w : d.writes)
      written.push_back({d.bindings[w], index});
    body += "\n";
  }
  return "entry '" + e.name + "' (" + entryKindName(e.kind) +
         "): " + plural(dispatches, "dispatch", "dispatches") + ", " +
         plural(barriers, "barrier", "barriers") + "\n" + body;
}

} // namespace capture::rt
