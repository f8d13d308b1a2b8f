//===- capmod_verify.cpp - Bounds checks of a ModuleDesc ------------------===//
//
// Everything here runs before the device is touched: a hostile or corrupt
// module must end as a message naming what was expected and what was found,
// never as an out-of-bounds access on the host or the device.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "capture/rt/host_isa.h"
#include "capture/rt/initializer.h"
#include "capture/rt/replay_stream.h"
#include "capture/rt/tensor.h"

#include "check_util.h"
#include "spirv_check.h"
#include "train_verify.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <tuple>

namespace capture::rt {
namespace {

/// Checks done once per module, with the context every message needs.
class Verifier {
public:
  explicit Verifier(const ModuleDesc &desc) : desc(desc) {}

  Status run() {
    if (desc.formatVersion != kCapmodFormatVersion)
      return fail("unsupported format_version " + str(desc.formatVersion) +
                  ", this runtime reads format_version " +
                  str(kCapmodFormatVersion));
    if (desc.target.bindingAlignment == 0)
      return fail("target.binding_alignment is 0, expected a positive "
                  "alignment in bytes");
    CAPTURE_RT_RETURN_IF_ERROR(checkBuffers());
    CAPTURE_RT_RETURN_IF_ERROR(checkKernels());
    CAPTURE_RT_RETURN_IF_ERROR(checkWeights());
    CAPTURE_RT_RETURN_IF_ERROR(checkConstants());
    if (desc.entries.empty())
      return fail("module has no entries");
    std::set<std::string> names;
    for (size_t i = 0; i < desc.entries.size(); ++i) {
      const EntryDesc &entry = desc.entries[i];
      if (entry.name.empty())
        return fail("entry " + str(i) + " has an empty name");
      if (!names.insert(entry.name).second)
        return fail("two entries are named '" + entry.name + "'");
      CAPTURE_RT_RETURN_IF_ERROR(checkEntry(entry));
    }
    return checkHostCode();
  }

private:
  /// The host code's header fields; its bytes are checked by the loader
  /// that runs them (rt::HostCode::load), on the machine that would.
  Status checkHostCode() const {
    if (!desc.hostCode)
      return Status::ok();
    const HostCodeDesc &host = *desc.hostCode;
    if (host.triple != kHostCodeTriple)
      return fail("host_code.triple is '" + host.triple + "', expected '" +
                  kHostCodeTriple + "'");
    if (Result<std::vector<std::string>> missing =
            missingHostFeatures(host.isaLevel);
        missing.isError())
      return fail("host_code.isa_level: " + missing.message());
    if (host.library.size() < sizeof(kHostCodeMagic) ||
        std::memcmp(host.library.data(), kHostCodeMagic,
                    sizeof(kHostCodeMagic)) != 0)
      return fail("host_code.library is not an ELF file (" +
                  str(host.library.size()) + " bytes)");
    return Status::ok();
  }

  Status fail(const std::string &msg) const {
    return Status::error("capmod: " + msg);
  }

  /// "buffer 2 (Scratch, 4096 bytes)"; `index` must be valid.
  std::string bufferName(uint32_t index) const {
    return capture::rt::bufferName(desc, index);
  }

  Status checkBufferIndex(uint64_t index, const std::string &where) const {
    if (index >= desc.buffers.size())
      return fail(where + ": buffer index " + str(index) +
                  " out of range (module has " + str(desc.buffers.size()) +
                  " buffers)");
    return Status::ok();
  }

  Status checkBufferKind(uint32_t index, BufferKind kind,
                         const std::string &where) const {
    if (desc.buffers[index].kind != kind)
      return fail(where + " is " + bufferName(index) +
                  ", expected a buffer of kind " + bufferKindName(kind));
    return Status::ok();
  }

  Status checkBuffers() const {
    for (size_t i = 0; i < desc.buffers.size(); ++i) {
      const BufferDesc &b = desc.buffers[i];
      if (static_cast<uint8_t>(b.kind) >
          static_cast<uint8_t>(BufferKind::Optimizer))
        return fail("buffer " + str(i) + " has kind " +
                    str(static_cast<uint8_t>(b.kind)) +
                    ", expected Input (0), Output (1), Weights (2), "
                    "Constants (3), Scratch (4) or Optimizer (5)");
      if (b.size == 0)
        return fail("buffer " + str(i) + " (" + bufferKindName(b.kind) +
                    ") has size 0, expected > 0");
      // The loader zero-fills Optimizer buffers with vkCmdFillBuffer, which
      // writes whole 4-byte words only.
      if (b.kind == BufferKind::Optimizer && b.size % 4 != 0)
        return fail("buffer " + str(i) + " (Optimizer) has size " +
                    str(b.size) +
                    ", expected a multiple of 4 (it holds f32 "
                    "gradients and moments)");
    }
    return Status::ok();
  }

  Status checkKernels() {
    declaredBytes.resize(desc.kernels.size());
    for (size_t i = 0; i < desc.kernels.size(); ++i) {
      const KernelDesc &k = desc.kernels[i];
      std::string where = "kernel " + str(i) + " ('" + k.name + "')";
      if (k.entryPoint.empty())
        return fail(where + " has an empty entry_point");
      if (k.workgroupSize.size() != 3)
        return fail(where + ": workgroup_size has " +
                    str(k.workgroupSize.size()) + " entries, expected 3");
      for (size_t d = 0; d < 3; ++d)
        if (k.workgroupSize[d] == 0)
          return fail(where + ": workgroup_size[" + str(d) +
                      "] is 0, expected >= 1");
      // Beyond every device's descriptor limits; bounded here so that the
      // SPIR-V check's per-binding table stays small for any file.
      constexpr uint32_t kMaxBindings = 4096;
      if (k.numBindings > kMaxBindings)
        return fail(where + ": num_bindings is " + str(k.numBindings) +
                    ", expected at most " + str(kMaxBindings));
      if (!k.bindingShapes.empty() && k.bindingShapes.size() != k.numBindings)
        return fail(where + ": binding_shapes has " +
                    str(k.bindingShapes.size()) + " entries, expected " +
                    str(k.numBindings) + " (num_bindings)");
      for (const std::vector<int64_t> &shape : k.bindingShapes)
        for (int64_t dim : shape)
          if (dim < 0)
            return fail(where + ": binding_shapes has a negative dimension " +
                        std::to_string(dim));
      if (!k.bindingKinds.empty() && k.bindingKinds.size() != k.numBindings)
        return fail(where + ": binding_kinds has " +
                    str(k.bindingKinds.size()) + " entries, expected " +
                    str(k.numBindings) + " (num_bindings) or none");
      for (size_t b = 0; b < k.bindingKinds.size(); ++b)
        if (static_cast<uint8_t>(k.bindingKinds[b]) >
            static_cast<uint8_t>(BindingKind::TexelBufferRgba32f))
          return fail(where + ": binding_kinds[" + str(b) + "] is " +
                      str(static_cast<uint8_t>(k.bindingKinds[b])) +
                      ", expected StorageBuffer (0) or TexelBufferRgba32f "
                      "(1)");
      CAPTURE_RT_RETURN_IF_ERROR(checkKernelSpirv(
          k, i, desc.target.vulkanApiVersion, &declaredBytes[i]));
    }
    return Status::ok();
  }

  /// Checks a named tensor: dtype, shape, size == product(shape) * 4, buffer
  /// index and that its bytes lie inside the buffer.
  Status checkSlot(const std::string &where, const std::string &name,
                   const std::vector<int64_t> &shape, DType dtype,
                   uint64_t buffer, uint64_t offset, uint64_t size,
                   std::optional<uint32_t> expectedBuffer = std::nullopt,
                   const char *bufferRole = "") const {
    if (name.empty())
      return fail(where + " has an empty name");
    if (dtype != DType::F32 && dtype != DType::I32)
      return fail(where + " has dtype " + str(static_cast<uint8_t>(dtype)) +
                  ", expected F32 (0) or I32 (1)");
    std::optional<uint64_t> count =
        elementCount(shape, std::numeric_limits<uint64_t>::max() / 4);
    if (!count)
      return fail(where + " has shape " + formatShape(shape) +
                  ", expected non-negative dimensions whose product fits "
                  "64 bits");
    uint64_t expected = *count * dtypeSize(dtype);
    if (size != expected)
      return fail(where + " has size " + str(size) + " bytes, expected " +
                  str(expected) + " for " + formatType(shape, dtype));
    if (expectedBuffer && buffer != *expectedBuffer)
      return fail(where + " is in buffer " + str(buffer) + ", expected the " +
                  bufferRole + " buffer " + str(*expectedBuffer));
    CAPTURE_RT_RETURN_IF_ERROR(checkBufferIndex(buffer, where));
    const BufferDesc &b = desc.buffers[buffer];
    if (!rangeInside(offset, size, b.size))
      return fail(where + ": range " + formatRange(offset, size) + " exceeds " +
                  bufferName(static_cast<uint32_t>(buffer)));
    return Status::ok();
  }

  /// Ranges of one buffer that must not overlap (inputs, weights):
  /// (offset, size, name).
  using NamedRange = std::tuple<uint64_t, uint64_t, std::string>;
  Status checkDisjoint(std::vector<NamedRange> ranges,
                       const std::string &what) const {
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 1; i < ranges.size(); ++i) {
      auto &[offA, sizeA, nameA] = ranges[i - 1];
      auto &[offB, sizeB, nameB] = ranges[i];
      // Both ranges were checked to lie inside their buffer: no overflow.
      if (sizeA && sizeB && offA + sizeA > offB)
        return fail(what + " '" + nameA + "' " + formatRange(offA, sizeA) +
                    " and '" + nameB + "' " + formatRange(offB, sizeB) +
                    " overlap");
    }
    return Status::ok();
  }

  Status checkWeights() const {
    if (desc.weightsBuffer < -1)
      return fail("weights_buffer is " + std::to_string(desc.weightsBuffer) +
                  ", expected -1 or a buffer index");
    if (desc.weightsBuffer == -1) {
      if (!desc.weights.empty())
        return fail("module has " + str(desc.weights.size()) +
                    " weights but no weights_buffer (-1)");
      return Status::ok();
    }
    uint32_t wb = static_cast<uint32_t>(desc.weightsBuffer);
    CAPTURE_RT_RETURN_IF_ERROR(checkBufferIndex(wb, "weights_buffer"));
    CAPTURE_RT_RETURN_IF_ERROR(
        checkBufferKind(wb, BufferKind::Weights, "weights_buffer"));
    std::set<std::string> names;
    std::vector<NamedRange> ranges;
    for (size_t i = 0; i < desc.weights.size(); ++i) {
      const WeightDesc &w = desc.weights[i];
      std::string where = "weight " + str(i) + " ('" + w.name + "')";
      CAPTURE_RT_RETURN_IF_ERROR(
          checkSlot(where, w.name, w.shape, w.dtype, wb, w.offset, w.size));
      if (!names.insert(w.name).second)
        return fail("two weights are named '" + w.name + "'");
      if (w.init && w.init->size() != w.size)
        return fail(where + ": init has " + str(w.init->size()) +
                    " bytes, expected " + str(w.size) +
                    " (the weight's size) or none");
      if (w.initializer) {
        if (w.init)
          return fail(where + " has both init bytes and an initializer, "
                              "expected at most one");
        if (w.dtype != DType::F32 && w.initializer->kind != InitKind::Zeros)
          return fail(where + ": a " + initKindName(w.initializer->kind) +
                      " initializer needs an f32 weight, got " +
                      dtypeName(w.dtype));
        Status s = checkInitializer(*w.initializer, "capmod: " + where);
        if (s.isError())
          return s;
      }
      ranges.emplace_back(w.offset, w.size, w.name);
    }
    return checkDisjoint(std::move(ranges), "weights");
  }

  Status checkConstants() const {
    if (desc.constantsBuffer < -1)
      return fail("constants_buffer is " +
                  std::to_string(desc.constantsBuffer) +
                  ", expected -1 or a buffer index");
    if (desc.constantsBuffer == -1) {
      if (desc.constants && !desc.constants->empty())
        return fail("module has " + str(desc.constants->size()) +
                    " bytes of constants but no constants_buffer (-1)");
      if (!desc.constantFills.empty())
        return fail("module has " + str(desc.constantFills.size()) +
                    " constant fills but no constants_buffer (-1)");
      return Status::ok();
    }
    uint32_t cb = static_cast<uint32_t>(desc.constantsBuffer);
    CAPTURE_RT_RETURN_IF_ERROR(checkBufferIndex(cb, "constants_buffer"));
    CAPTURE_RT_RETURN_IF_ERROR(
        checkBufferKind(cb, BufferKind::Constants, "constants_buffer"));
    uint64_t have = desc.constants ? desc.constants->size() : 0;
    uint64_t size = desc.buffers[cb].size;
    if (have > size)
      return fail("constants have " + str(have) + " bytes, expected at most " +
                  str(size) + " (the size of " + bufferName(cb) + ")");
    std::vector<NamedRange> ranges;
    for (size_t i = 0; i < desc.constantFills.size(); ++i) {
      const ConstantFillDesc &f = desc.constantFills[i];
      std::string where =
          "constant_fills[" + str(i) + "] " + formatRange(f.offset, f.size);
      if (f.size == 0 || f.offset % 4 || f.size % 4)
        return fail(where + ": offset and size must be multiples of 4 and "
                            "the size > 0");
      if (!rangeInside(f.offset, f.size, size))
        return fail(where + " exceeds " + bufferName(cb));
      if (f.offset < have)
        return fail(where + " overlaps the " + str(have) +
                    " initial bytes of the constants, expected fills past "
                    "them");
      ranges.emplace_back(f.offset, f.size, "constant_fills[" + str(i) + "]");
    }
    return checkDisjoint(std::move(ranges), "constant fills");
  }

  Status checkSlots(const EntryDesc &entry,
                    const std::vector<TensorSlotDesc> &slots, const char *what,
                    std::optional<uint32_t> buffer,
                    std::set<std::string> &names) const {
    for (size_t i = 0; i < slots.size(); ++i) {
      const TensorSlotDesc &s = slots[i];
      std::string where =
          "entry '" + entry.name + "': " + what + " '" + s.name + "'";
      std::string role = std::string("entry's ") + what;
      CAPTURE_RT_RETURN_IF_ERROR(checkSlot(where, s.name, s.shape, s.dtype,
                                           s.buffer, s.offset, s.size, buffer,
                                           role.c_str()));
      if (!names.insert(s.name).second)
        return fail("entry '" + entry.name + "': two tensors are named '" +
                    s.name + "'");
    }
    return Status::ok();
  }

  Status checkEntry(const EntryDesc &entry) const {
    std::string where = "entry '" + entry.name + "'";
    if (entry.kind != EntryKind::Forward && entry.kind != EntryKind::Train)
      return fail(where + " has kind " + str(static_cast<uint8_t>(entry.kind)) +
                  ", expected Forward (0) or Train (1)");
    if (entry.kind == EntryKind::Train && !entry.train)
      return fail(where + " has kind Train but no train table, expected one "
                          "(the optimizer and the names of its runtime-filled "
                          "inputs)");
    if (entry.kind != EntryKind::Train && entry.train)
      return fail(where + " has kind " + entryKindName(entry.kind) +
                  " and a train table, expected a train table only on a "
                  "Train entry");
    // An entry without inputs (outputs) has no input (output) buffer: the
    // index is then unused, so it is not checked.
    if (!entry.inputs.empty()) {
      CAPTURE_RT_RETURN_IF_ERROR(
          checkBufferIndex(entry.inputBuffer, where + ": input_buffer"));
      CAPTURE_RT_RETURN_IF_ERROR(checkBufferKind(
          entry.inputBuffer, BufferKind::Input, where + ": input_buffer"));
    }
    if (!entry.outputs.empty()) {
      CAPTURE_RT_RETURN_IF_ERROR(
          checkBufferIndex(entry.outputBuffer, where + ": output_buffer"));
      CAPTURE_RT_RETURN_IF_ERROR(checkBufferKind(
          entry.outputBuffer, BufferKind::Output, where + ": output_buffer"));
    }
    std::set<std::string> names;
    CAPTURE_RT_RETURN_IF_ERROR(
        checkSlots(entry, entry.inputs, "input", entry.inputBuffer, names));
    CAPTURE_RT_RETURN_IF_ERROR(
        checkSlots(entry, entry.outputs, "output", entry.outputBuffer, names));
    CAPTURE_RT_RETURN_IF_ERROR(
        checkSlots(entry, entry.probes, "probe", std::nullopt, names));
    // Inputs are packed by the host one after another: overlapping slots
    // would silently overwrite each other.
    std::vector<NamedRange> inputRanges;
    for (const TensorSlotDesc &s : entry.inputs)
      inputRanges.emplace_back(s.offset, s.size, s.name);
    CAPTURE_RT_RETURN_IF_ERROR(
        checkDisjoint(std::move(inputRanges), where + ": inputs"));
    if (entry.train)
      CAPTURE_RT_RETURN_IF_ERROR(verifyTrainEntry(desc, entry));
    CAPTURE_RT_RETURN_IF_ERROR(checkIndexChecks(entry, where));

    for (size_t i = 0; i < entry.commands.size(); ++i)
      if (entry.commands[i].kind == CommandDesc::Kind::Dispatch)
        CAPTURE_RT_RETURN_IF_ERROR(
            checkDispatch(entry, i, entry.commands[i].dispatch));
    return checkHazards(entry);
  }

  /// Every index check names its own i32 [2] output, a bound >= 0 and an op.
  Status checkIndexChecks(const EntryDesc &entry,
                          const std::string &where) const {
    std::set<std::string> seen;
    for (size_t i = 0; i < entry.indexChecks.size(); ++i) {
      const IndexCheckDesc &c = entry.indexChecks[i];
      std::string at = where + ": index_checks[" + str(i) + "]";
      if (c.op.empty())
        return fail(at + " has an empty op, expected the indexing op's name");
      if (c.bound < 0)
        return fail(at + " has bound " + std::to_string(c.bound) +
                    ", expected >= 0");
      if (!seen.insert(c.output).second)
        return fail(at + " checks output '" + c.output +
                    "' again, expected one check per output");
      auto slot = std::find_if(
          entry.outputs.begin(), entry.outputs.end(),
          [&](const TensorSlotDesc &s) { return s.name == c.output; });
      if (slot == entry.outputs.end())
        return fail(at + " names output '" + c.output +
                    "', which the entry does not have");
      if (slot->dtype != DType::I32 || slot->shape != std::vector<int64_t>{2})
        return fail(at + ": output '" + c.output + "' is " +
                    formatType(slot->shape, slot->dtype) +
                    ", expected [2] (i32): [first bad position, its value]");
    }
    return Status::ok();
  }

  Status checkDispatch(const EntryDesc &entry, size_t index,
                       const DispatchDesc &d) const {
    std::string where =
        "dispatch " + str(index) + " of entry '" + entry.name + "'";
    if (d.kernel >= desc.kernels.size())
      return fail(where + ": kernel index " + str(d.kernel) +
                  " out of range (module has " + str(desc.kernels.size()) +
                  " kernels)");
    const KernelDesc &k = desc.kernels[d.kernel];
    if (d.groups.size() != 3)
      return fail(where + ": groups has " + str(d.groups.size()) +
                  " entries, expected 3");
    for (size_t g = 0; g < 3; ++g)
      if (d.groups[g] == 0)
        return fail(where + ": groups[" + str(g) + "] is 0, expected >= 1");
    if (d.bindings.size() != k.numBindings)
      return fail(where + ": " + str(d.bindings.size()) +
                  " bindings, but kernel " + str(d.kernel) + " ('" + k.name +
                  "') has num_bindings " + str(k.numBindings));
    uint32_t align = desc.target.bindingAlignment;
    for (size_t b = 0; b < d.bindings.size(); ++b) {
      const BufferRangeDesc &r = d.bindings[b];
      std::string bw = where + ": binding " + str(b);
      CAPTURE_RT_RETURN_IF_ERROR(checkBufferIndex(r.buffer, bw));
      if (r.size == 0)
        return fail(bw + " has size 0, expected > 0");
      if (r.offset % align != 0)
        return fail(bw + " offset " + str(r.offset) +
                    " is not a multiple of target.binding_alignment " +
                    str(align));
      if (!rangeInside(r.offset, r.size, desc.buffers[r.buffer].size))
        return fail(bw + " range " + formatRange(r.offset, r.size) +
                    " exceeds " + bufferName(r.buffer));
      // Without this a kernel could index its fixed-size array past the
      // range: robustBufferAccess would keep it inside the buffer, not
      // inside the tensor.
      const std::vector<uint64_t> &declared = declaredBytes[d.kernel];
      if (b < declared.size() && r.size < declared[b])
        return fail(bw + " is " + str(r.size) + " bytes, but kernel " +
                    str(d.kernel) + " ('" + k.name + "') declares " +
                    str(declared[b]) +
                    " bytes for it in its SPIR-V: the kernel would reach "
                    "past the range bound to it");
      bool texel = bindingKindOf(k, b) == BindingKind::TexelBufferRgba32f;
      // A buffer view covers whole texels.
      if (texel &&
          (r.offset % kRgba32fTexelBytes || r.size % kRgba32fTexelBytes))
        return fail(bw + " (TexelBufferRgba32f) range " +
                    formatRange(r.offset, r.size) +
                    " has an offset or size that is not a multiple of " +
                    str(kRgba32fTexelBytes) + " bytes (one RGBA32F texel)");
      if (b < k.bindingShapes.size()) {
        uint64_t bytes = 4;
        for (int64_t dim : k.bindingShapes[b])
          bytes *= dim < 0 ? 0 : static_cast<uint64_t>(dim);
        // A texel binding's last texel may hold padding past the tensor;
        // so may a read-only storage binding's last vec4 (kernels read
        // tensors as vec4 elements).
        uint64_t rounded =
            bytes / kRgba32fTexelBytes * kRgba32fTexelBytes +
            (bytes % kRgba32fTexelBytes ? kRgba32fTexelBytes : 0);
        bool written =
            std::find(d.writes.begin(), d.writes.end(), b) != d.writes.end();
        uint64_t expected = texel ? rounded : bytes;
        if (!texel && !written && r.size == rounded)
          expected = rounded;
        if (expected != r.size)
          return fail(bw + " is " + str(r.size) + " bytes, but kernel '" +
                      k.name + "' binds a tensor of " + str(bytes) +
                      " bytes there" +
                      (texel ? " (as a texel buffer: " + str(expected) +
                                   " bytes, rounded up to whole 16-byte "
                                   "texels)"
                             : std::string()));
      }
    }
    for (uint32_t w : d.writes) {
      if (w >= d.bindings.size())
        return fail(where + ": writes index " + str(w) +
                    " out of range (dispatch has " + str(d.bindings.size()) +
                    " bindings)");
      if (bindingKindOf(k, w) == BindingKind::TexelBufferRgba32f)
        return fail(where + ": writes binding " + str(w) + ", which kernel '" +
                    k.name +
                    "' binds as TexelBufferRgba32f; texel bindings are "
                    "read-only, expected only storage buffers in writes");
      if (desc.buffers[d.bindings[w].buffer].kind == BufferKind::Constants)
        return fail(where + ": binding " + str(w) + " writes " +
                    bufferName(d.bindings[w].buffer) + ", which is read-only");
    }
    return Status::ok();
  }

  /// Two dispatches between the same pair of barriers run unordered: a
  /// range one writes must not overlap a range the other accesses. The
  /// validation layer does not catch compute-after-compute hazards, so the
  /// schedule is checked here, by the sweep the loader also runs over the
  /// whole replay stream (replay_stream.h).
  Status checkHazards(const EntryDesc &entry) const {
    return checkStreamHazards(desc, entry, scheduleStream(entry));
  }

  /// The module being checked.
  const ModuleDesc &desc;
  /// Per kernel and binding, the bytes its SPIR-V declares there
  /// (checkKernelSpirv); filled by checkKernels before any dispatch check.
  std::vector<std::vector<uint64_t>> declaredBytes;
};

} // namespace

Status verifyModuleDesc(const ModuleDesc &desc) { return Verifier(desc).run(); }

} // namespace capture::rt
