//===- capmod_reader.cpp - .capmod bytes -> ModuleDesc --------------------===//
//
// Only this file and capmod_writer.cpp see FlatBuffers types; everything
// downstream works on the plain ModuleDesc.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"

#include "capmod_checksum.h"
#include "capmod_generated.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace fb = capture::capmod;

// The reader and the writer cast between the schema's initializer kinds and
// the runtime's: the same values, kind for kind.
static_assert(static_cast<int>(fb::InitKind::Zeros) ==
                  static_cast<int>(capture::rt::InitKind::Zeros) &&
              static_cast<int>(fb::InitKind::Constant) ==
                  static_cast<int>(capture::rt::InitKind::Constant) &&
              static_cast<int>(fb::InitKind::Uniform) ==
                  static_cast<int>(capture::rt::InitKind::Uniform) &&
              static_cast<int>(fb::InitKind::Normal) ==
                  static_cast<int>(capture::rt::InitKind::Normal) &&
              static_cast<int>(fb::InitKind::Linear) ==
                  static_cast<int>(capture::rt::InitKind::Linear) &&
              fb::InitKind::MAX == fb::InitKind::Linear);

namespace capture::rt {
namespace {

/// The file identifier as text for messages: printable ASCII as is, other
/// bytes as \xNN.
std::string showIdentifier(const uint8_t *id) {
  static const char hex[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 4; ++i) {
    uint8_t c = id[i];
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      s += static_cast<char>(c);
    } else {
      s += "\\x";
      s += hex[c >> 4];
      s += hex[c & 15];
    }
  }
  return s;
}

/// Reads format_version with just enough verification to do it safely, so
/// that a file of another version is reported as such even when the rest of
/// it does not verify against this schema.
std::optional<uint32_t> peekFormatVersion(const uint8_t *data, size_t size) {
  flatbuffers::Verifier verifier(data, size);
  if (!verifier.VerifyAlignment(0, sizeof(flatbuffers::uoffset_t)) ||
      size < sizeof(flatbuffers::uoffset_t))
    return std::nullopt;
  uint64_t rootOffset = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(data);
  if (rootOffset >= size)
    return std::nullopt;
  const auto *root = flatbuffers::GetRoot<flatbuffers::Table>(data);
  if (!root->VerifyTableStart(verifier) ||
      !root->VerifyField<uint32_t>(verifier, fb::Module::VT_FORMAT_VERSION,
                                   sizeof(uint32_t)))
    return std::nullopt;
  return root->GetField<uint32_t>(fb::Module::VT_FORMAT_VERSION, 0);
}

// The verifier checks a vector's alignment for its 4-byte length only, so in
// a hostile file the elements of a [long] vector or of a vector of structs
// may be misaligned: copy their bytes instead of loading them in place.
#if !FLATBUFFERS_LITTLEENDIAN
#error "capmod reading assumes a little-endian host (as FlatBuffers data is)"
#endif

template <typename T> std::vector<T> toVector(const flatbuffers::Vector<T> *v) {
  std::vector<T> out(v ? v->size() : 0);
  if (!out.empty())
    std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

std::string toString(const flatbuffers::String *s) {
  return s ? s->str() : std::string();
}

TensorSlotDesc toSlot(const fb::TensorSlot &slot) {
  TensorSlotDesc d;
  d.name = toString(slot.name());
  d.shape = toVector(slot.shape());
  d.dtype = static_cast<DType>(slot.dtype());
  d.buffer = slot.buffer();
  d.offset = slot.offset();
  d.size = slot.size();
  return d;
}

std::vector<TensorSlotDesc>
toSlots(const flatbuffers::Vector<flatbuffers::Offset<fb::TensorSlot>> *v) {
  std::vector<TensorSlotDesc> slots;
  if (v)
    for (const fb::TensorSlot *slot : *v)
      slots.push_back(toSlot(*slot));
  return slots;
}

/// Copies a struct field of a table; like the vector elements above, it is
/// copied rather than loaded in place.
BufferRangeDesc toRange(const fb::BufferRange *range) {
  fb::BufferRange r;
  std::memcpy(&r, range, sizeof(r));
  return {r.buffer(), r.offset(), r.size()};
}

AdamWDesc toAdamW(const fb::AdamW &a) {
  // A file from before `decoupled` reads as the schema's default, AdamW.
  return {a.lr(),  a.beta1(),        a.beta2(),
          a.eps(), a.weight_decay(), a.decoupled()};
}

TrainDesc toTrain(const fb::Train &train) {
  TrainDesc d;
  // The verifier guarantees the required fields; absent strings read as
  // empty, which verifyModuleDesc reports by name.
  d.adamw = toAdamW(*train.adamw());
  if (train.groups())
    for (const fb::AdamW *group : *train.groups())
      d.groups.push_back(toAdamW(*group));
  if (train.max_grad_norm())
    d.maxGradNorm = *train.max_grad_norm();
  d.hyperInput = toString(train.hyper_input());
  d.maxGradNormInput = toString(train.max_grad_norm_input());
  d.gradNormOutput = toString(train.grad_norm_output());
  d.params = toRange(train.params());
  d.moment1 = toRange(train.moment1());
  d.moment2 = toRange(train.moment2());
  if (train.grads())
    d.grads = toRange(train.grads());
  return d;
}

Result<EntryDesc> toEntry(const fb::Entry &entry) {
  EntryDesc d;
  d.name = toString(entry.name());
  d.kind = static_cast<EntryKind>(entry.kind());
  d.inputBuffer = entry.input_buffer();
  d.outputBuffer = entry.output_buffer();
  d.inputs = toSlots(entry.inputs());
  d.outputs = toSlots(entry.outputs());
  d.probes = toSlots(entry.probes());
  if (entry.train())
    d.train = toTrain(*entry.train());
  const auto *types = entry.commands_type();
  const auto *commands = entry.commands();
  // `commands` is required, and the verifier refuses it without a type
  // vector of its length; unknown union types it lets through (forward
  // compatibility), which the switch below refuses. Kept in case a newer
  // FlatBuffers verifies less.
  if (!types || !commands || types->size() != commands->size())
    return Status::error("capmod: entry '" + d.name +
                         "': commands have no matching type vector");
  for (flatbuffers::uoffset_t i = 0; i < commands->size(); ++i) {
    CommandDesc cmd;
    switch (types->Get(i)) {
    case fb::Command::Barrier:
      cmd.kind = CommandDesc::Kind::Barrier;
      break;
    case fb::Command::Dispatch: {
      const auto *dispatch =
          static_cast<const fb::Dispatch *>(commands->Get(i));
      cmd.kind = CommandDesc::Kind::Dispatch;
      cmd.dispatch.kernel = dispatch->kernel();
      cmd.dispatch.groups = toVector(dispatch->groups());
      const auto *ranges = dispatch->bindings();
      for (flatbuffers::uoffset_t r = 0; r < ranges->size(); ++r) {
        fb::BufferRange range;
        std::memcpy(&range, ranges->Data() + r * sizeof(fb::BufferRange),
                    sizeof(range));
        cmd.dispatch.bindings.push_back(
            {range.buffer(), range.offset(), range.size()});
      }
      cmd.dispatch.writes = toVector(dispatch->writes());
      cmd.dispatch.work = dispatch->work();
      break;
    }
    default:
      return Status::error(
          "capmod: command " + std::to_string(i) + " of entry '" + d.name +
          "' has command type " +
          std::to_string(static_cast<unsigned>(types->Get(i))) +
          ", expected Dispatch (1) or Barrier (2)");
    }
    d.commands.push_back(std::move(cmd));
  }
  if (entry.index_checks())
    for (const fb::IndexCheck *c : *entry.index_checks())
      d.indexChecks.push_back({toString(c->output()), toString(c->op()),
                               toString(c->input()), c->bound(),
                               toString(c->location())});
  return d;
}

} // namespace

const char *bufferKindName(BufferKind kind) {
  switch (kind) {
  case BufferKind::Input:
    return "Input";
  case BufferKind::Output:
    return "Output";
  case BufferKind::Weights:
    return "Weights";
  case BufferKind::Constants:
    return "Constants";
  case BufferKind::Scratch:
    return "Scratch";
  case BufferKind::Optimizer:
    return "Optimizer";
  }
  return "unknown-kind";
}

const char *bindingKindName(BindingKind kind) {
  switch (kind) {
  case BindingKind::StorageBuffer:
    return "StorageBuffer";
  case BindingKind::TexelBufferRgba32f:
    return "TexelBufferRgba32f";
  }
  return "unknown-kind";
}

const char *entryKindName(EntryKind kind) {
  switch (kind) {
  case EntryKind::Forward:
    return "Forward";
  case EntryKind::Train:
    return "Train";
  }
  return "unknown-kind";
}

Result<ModuleDesc> parseCapmod(const uint8_t *data, size_t size) {
  constexpr size_t kHeader = 8; // root offset + file identifier
  if (!data || size < kHeader)
    return Status::error("capmod: file too small: " + std::to_string(size) +
                         " bytes, a module file has at least " +
                         std::to_string(kHeader));
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return Status::error("capmod: file too large: " + std::to_string(size) +
                         " bytes, at most " +
                         std::to_string(FLATBUFFERS_MAX_BUFFER_SIZE - 1));
  if (!fb::ModuleBufferHasIdentifier(data))
    return Status::error("capmod: not a module file: file identifier is '" +
                         showIdentifier(data + 4) + "', expected '" +
                         fb::ModuleIdentifier() + "'");

  // FlatBuffers verifies alignment relative to the buffer start and reads
  // scalars in place: work on an 8-byte aligned copy whatever `data` is.
  std::vector<uint64_t> storage((size + 7) / 8);
  std::memcpy(storage.data(), data, size);
  const auto *bytes = reinterpret_cast<const uint8_t *>(storage.data());

  // Nothing past the identifier is trusted before the checksum holds; the
  // version is peeked (safely) only to say why a trailer is missing.
  Result<size_t> payload = checkCapmodChecksum(
      bytes, size, peekFormatVersion(bytes, size).value_or(0));
  if (payload.isError())
    return payload.status();
  size = payload.value();

  std::optional<uint32_t> version = peekFormatVersion(bytes, size);
  if (!version)
    return Status::error("capmod: file is corrupt or truncated (" +
                         std::to_string(size) +
                         " bytes): cannot read format_version");
  if (*version != kCapmodFormatVersion)
    return Status::error("capmod: unsupported format_version " +
                         std::to_string(*version) +
                         ", this runtime reads format_version " +
                         std::to_string(kCapmodFormatVersion) +
                         " (rebuild the module with a matching capture-aot)");

  flatbuffers::Verifier verifier(bytes, size);
  if (!fb::VerifyModuleBuffer(verifier))
    return Status::error(
        "capmod: file is corrupt or truncated (" + std::to_string(size) +
        " bytes): FlatBuffers verification of the format_version " +
        std::to_string(kCapmodFormatVersion) + " schema failed");

  const fb::Module *m = fb::GetModule(bytes);
  ModuleDesc desc;
  desc.formatVersion = m->format_version();
  desc.producer = toString(m->producer());
  desc.target.vulkanApiVersion = m->target()->vulkan_api_version();
  desc.target.bindingAlignment = m->target()->binding_alignment();
  for (const fb::Kernel *k : *m->kernels()) {
    KernelDesc kd;
    kd.name = toString(k->name());
    kd.entryPoint = toString(k->entry_point());
    kd.spirv = toVector(k->spirv());
    kd.workgroupSize = toVector(k->workgroup_size());
    kd.numBindings = k->num_bindings();
    if (k->binding_shapes())
      for (const fb::Shape *shape : *k->binding_shapes())
        kd.bindingShapes.push_back(shape->dims() ? toVector(shape->dims())
                                                 : std::vector<int64_t>());
    // Kept as read, unknown values included: verifyModuleDesc names them.
    if (k->binding_kinds())
      for (auto kind : *k->binding_kinds())
        kd.bindingKinds.push_back(static_cast<BindingKind>(kind));
    kd.loopIterations = k->loop_iterations();
    kd.subgroupMultiple = k->subgroup_multiple();
    desc.kernels.push_back(std::move(kd));
  }
  for (const fb::Buffer *b : *m->buffers())
    desc.buffers.push_back({static_cast<BufferKind>(b->kind()), b->size()});
  if (m->weights()) {
    for (const fb::Weight *w : *m->weights()) {
      WeightDesc wd;
      wd.name = toString(w->name());
      wd.shape = toVector(w->shape());
      wd.dtype = static_cast<DType>(w->dtype());
      wd.trainable = w->trainable();
      wd.offset = w->offset();
      wd.size = w->size();
      if (w->init())
        wd.init = toVector(w->init());
      if (const fb::Initializer *i = w->initializer())
        // Kept as read, unknown kinds included: verifyModuleDesc names them.
        wd.initializer = InitializerDesc{static_cast<InitKind>(i->kind()),
                                         i->value(),
                                         i->low(),
                                         i->high(),
                                         i->mean(),
                                         i->std(),
                                         i->fan_in(),
                                         i->seed()};
      desc.weights.push_back(std::move(wd));
    }
  }
  desc.weightsBuffer = m->weights_buffer();
  if (m->constants())
    desc.constants = toVector(m->constants());
  desc.constantsBuffer = m->constants_buffer();
  // Copied out as the bindings are: FlatBuffers does not check the 8-byte
  // alignment of a struct vector's elements, and a hostile file may break
  // it (found by runtime/fuzz/capmod_fuzzer.cpp).
  if (const auto *fills = m->constant_fills()) {
    for (uint32_t i = 0; i < fills->size(); ++i) {
      fb::ConstantFill f;
      std::memcpy(&f, fills->Data() + i * sizeof(fb::ConstantFill), sizeof(f));
      desc.constantFills.push_back({f.offset(), f.size(), f.value()});
    }
  }
  for (const fb::Entry *e : *m->entries()) {
    Result<EntryDesc> entry = toEntry(*e);
    if (entry.isError())
      return entry.status();
    desc.entries.push_back(std::move(entry).value());
  }
  if (const fb::HostCode *host = m->host_code())
    desc.hostCode =
        HostCodeDesc{host->triple()->str(), host->isa_level()->str(),
                     toVector(host->library())};
  return desc;
}

Result<ModuleDesc> readCapmod(const uint8_t *data, size_t size) {
  Result<ModuleDesc> desc = parseCapmod(data, size);
  if (desc.isError())
    return desc;
  CAPTURE_RT_RETURN_IF_ERROR(verifyModuleDesc(desc.value()));
  return desc;
}

Result<ModuleDesc> readCapmodFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot open module file '" + path +
                         "': " + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad())
    return Status::error("cannot read module file '" + path + "'");
  Result<ModuleDesc> desc = readCapmod(bytes.data(), bytes.size());
  if (desc.isError())
    return desc.status().withContext(path);
  return desc;
}

} // namespace capture::rt
