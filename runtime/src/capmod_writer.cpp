//===- capmod_writer.cpp - ModuleDesc -> .capmod bytes --------------------===//

#include "capture/rt/capmod.h"

#include "capmod_checksum.h"
#include "capmod_generated.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace fb = capture::capmod;

namespace capture::rt {
namespace {

using Builder = flatbuffers::FlatBufferBuilder;

flatbuffers::Offset<fb::TensorSlot> writeSlot(Builder &b,
                                              const TensorSlotDesc &slot) {
  auto name = b.CreateString(slot.name);
  auto shape = b.CreateVector(slot.shape);
  return fb::CreateTensorSlot(b, name, shape,
                              static_cast<fb::DType>(slot.dtype), slot.buffer,
                              slot.offset, slot.size);
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::TensorSlot>>>
writeSlots(Builder &b, const std::vector<TensorSlotDesc> &slots) {
  std::vector<flatbuffers::Offset<fb::TensorSlot>> offsets;
  for (const TensorSlotDesc &slot : slots)
    offsets.push_back(writeSlot(b, slot));
  return b.CreateVector(offsets);
}

fb::BufferRange toRange(const BufferRangeDesc &r) {
  return fb::BufferRange(r.buffer, r.offset, r.size);
}

flatbuffers::Offset<fb::AdamW> writeAdamW(Builder &b, const AdamWDesc &a) {
  return fb::CreateAdamW(b, a.lr, a.beta1, a.beta2, a.eps, a.weightDecay,
                         a.decoupled);
}

flatbuffers::Offset<fb::Train> writeTrain(Builder &b, const TrainDesc &train) {
  auto adamw = writeAdamW(b, train.adamw);
  // Absent for one group, as files from before param groups.
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::AdamW>>>
      groups = 0;
  if (!train.groups.empty()) {
    std::vector<flatbuffers::Offset<fb::AdamW>> offsets;
    for (const AdamWDesc &g : train.groups)
      offsets.push_back(writeAdamW(b, g));
    groups = b.CreateVector(offsets);
  }
  auto hyper = b.CreateString(train.hyperInput);
  // An empty name is written as absent, which reads back as empty.
  auto maxNormInput = train.maxGradNormInput.empty()
                          ? 0
                          : b.CreateString(train.maxGradNormInput);
  auto gradNorm = b.CreateString(train.gradNormOutput);
  fb::BufferRange params = toRange(train.params);
  fb::BufferRange moment1 = toRange(train.moment1);
  fb::BufferRange moment2 = toRange(train.moment2);
  fb::BufferRange grads =
      train.grads ? toRange(*train.grads) : fb::BufferRange();
  flatbuffers::Optional<float> maxNorm = flatbuffers::nullopt;
  if (train.maxGradNorm)
    maxNorm = *train.maxGradNorm;
  return fb::CreateTrain(b, adamw, maxNorm, hyper, maxNormInput, gradNorm,
                         &params, &moment1, &moment2,
                         train.grads ? &grads : nullptr, groups);
}

flatbuffers::Offset<fb::Entry> writeEntry(Builder &b, const EntryDesc &entry) {
  std::vector<fb::Command> types;
  std::vector<flatbuffers::Offset<void>> commands;
  for (const CommandDesc &cmd : entry.commands) {
    if (cmd.kind == CommandDesc::Kind::Barrier) {
      types.push_back(fb::Command::Barrier);
      commands.push_back(fb::CreateBarrier(b).Union());
      continue;
    }
    const DispatchDesc &d = cmd.dispatch;
    std::vector<fb::BufferRange> ranges;
    for (const BufferRangeDesc &r : d.bindings)
      ranges.emplace_back(r.buffer, r.offset, r.size);
    auto groups = b.CreateVector(d.groups);
    auto bindings = b.CreateVectorOfStructs(ranges);
    auto writes = b.CreateVector(d.writes);
    types.push_back(fb::Command::Dispatch);
    commands.push_back(
        fb::CreateDispatch(b, d.kernel, groups, bindings, writes, d.work)
            .Union());
  }
  auto name = b.CreateString(entry.name);
  auto inputs = writeSlots(b, entry.inputs);
  auto outputs = writeSlots(b, entry.outputs);
  auto probes = entry.probes.empty() ? 0 : writeSlots(b, entry.probes);
  auto typeVec = b.CreateVector(types);
  auto cmdVec = b.CreateVector(commands);
  auto train = entry.train ? writeTrain(b, *entry.train) : 0;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::IndexCheck>>>
      checks;
  if (!entry.indexChecks.empty()) {
    std::vector<flatbuffers::Offset<fb::IndexCheck>> list;
    for (const IndexCheckDesc &c : entry.indexChecks)
      list.push_back(fb::CreateIndexCheck(
          b, b.CreateString(c.output), b.CreateString(c.op),
          b.CreateString(c.input), c.bound, b.CreateString(c.location)));
    checks = b.CreateVector(list);
  }
  return fb::CreateEntry(b, name, static_cast<fb::EntryKind>(entry.kind),
                         entry.inputBuffer, entry.outputBuffer, inputs, outputs,
                         probes, typeVec, cmdVec, train, checks);
}

} // namespace

std::vector<uint8_t> writeCapmod(const ModuleDesc &desc) {
  Builder b;
  std::vector<flatbuffers::Offset<fb::Kernel>> kernels;
  for (const KernelDesc &k : desc.kernels) {
    auto name = b.CreateString(k.name);
    auto entryPoint = b.CreateString(k.entryPoint);
    auto spirv = b.CreateVector(k.spirv);
    auto wg = b.CreateVector(k.workgroupSize);
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Shape>>>
        shapes;
    if (!k.bindingShapes.empty()) {
      std::vector<flatbuffers::Offset<fb::Shape>> list;
      for (const std::vector<int64_t> &dims : k.bindingShapes)
        list.push_back(fb::CreateShape(b, b.CreateVector(dims)));
      shapes = b.CreateVector(list);
    }
    // Empty is written as absent, which reads back as empty.
    flatbuffers::Offset<flatbuffers::Vector<fb::BindingKind>> kinds;
    if (!k.bindingKinds.empty()) {
      std::vector<fb::BindingKind> values;
      for (BindingKind kind : k.bindingKinds)
        values.push_back(static_cast<fb::BindingKind>(kind));
      kinds = b.CreateVector(values);
    }
    kernels.push_back(fb::CreateKernel(b, name, entryPoint, spirv, wg,
                                       k.numBindings, shapes, kinds,
                                       k.loopIterations, k.subgroupMultiple));
  }
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  for (const BufferDesc &buf : desc.buffers)
    buffers.push_back(
        fb::CreateBuffer(b, static_cast<fb::BufferKind>(buf.kind), buf.size));
  std::vector<flatbuffers::Offset<fb::Weight>> weights;
  for (const WeightDesc &w : desc.weights) {
    auto name = b.CreateString(w.name);
    auto shape = b.CreateVector(w.shape);
    auto init = w.init ? b.CreateVector(*w.init) : 0;
    flatbuffers::Offset<fb::Initializer> initializer;
    if (const std::optional<InitializerDesc> &i = w.initializer)
      initializer = fb::CreateInitializer(b, static_cast<fb::InitKind>(i->kind),
                                          i->value, i->low, i->high, i->mean,
                                          i->std, i->fanIn, i->seed);
    weights.push_back(
        fb::CreateWeight(b, name, shape, static_cast<fb::DType>(w.dtype),
                         w.trainable, w.offset, w.size, init, initializer));
  }
  std::vector<flatbuffers::Offset<fb::Entry>> entries;
  for (const EntryDesc &e : desc.entries)
    entries.push_back(writeEntry(b, e));

  auto producer = b.CreateString(desc.producer);
  auto target = fb::CreateTarget(b, desc.target.vulkanApiVersion,
                                 desc.target.bindingAlignment);
  auto kernelVec = b.CreateVector(kernels);
  auto bufferVec = b.CreateVector(buffers);
  auto weightVec = weights.empty() ? 0 : b.CreateVector(weights);
  auto constants = desc.constants ? b.CreateVector(*desc.constants) : 0;
  auto entryVec = b.CreateVector(entries);
  flatbuffers::Offset<flatbuffers::Vector<const fb::ConstantFill *>> fills;
  if (!desc.constantFills.empty()) {
    std::vector<fb::ConstantFill> list;
    for (const ConstantFillDesc &f : desc.constantFills)
      list.emplace_back(f.offset, f.size, f.value);
    fills = b.CreateVectorOfStructs(list);
  }
  flatbuffers::Offset<fb::HostCode> hostCode;
  if (desc.hostCode)
    hostCode = fb::CreateHostCode(b, b.CreateString(desc.hostCode->triple),
                                  b.CreateString(desc.hostCode->isaLevel),
                                  b.CreateVector(desc.hostCode->library));
  auto module =
      fb::CreateModule(b, desc.formatVersion, producer, target, kernelVec,
                       bufferVec, weightVec, desc.weightsBuffer, constants,
                       desc.constantsBuffer, entryVec, fills, hostCode);
  fb::FinishModuleBuffer(b, module);
  std::vector<uint8_t> bytes(b.GetBufferPointer(),
                             b.GetBufferPointer() + b.GetSize());
  appendCapmodChecksum(bytes);
  return bytes;
}

Status writeCapmodFile(const std::string &path, const ModuleDesc &desc) {
  std::vector<uint8_t> bytes = writeCapmod(desc);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return Status::error("cannot create '" + path +
                         "': " + std::strerror(errno));
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out)
    return Status::error("cannot write '" + path + "'");
  return Status::ok();
}

} // namespace capture::rt
