//===- CapmodPrinter.cpp - Human-readable summary of a .capmod ------------===//
//
// Used by `capture-aot --print-module` and the tests that check the schedule
// (which dispatch reads and writes what, and where the barriers are).
//
//===----------------------------------------------------------------------===//

#include "capture/Target/Capmod.h"

#include "capture/rt/capmod.h"
#include "capture/rt/initializer.h"

#include <cstdio>

#include "llvm/ADT/STLExtras.h"

using namespace capture;
namespace rt = capture::rt;

static void printSlots(llvm::StringRef what,
                       const std::vector<rt::TensorSlotDesc> &slots,
                       llvm::raw_ostream &os) {
  for (const rt::TensorSlotDesc &slot : slots) {
    os << "  " << what << ' ' << slot.name << ' '
       << rt::formatType(slot.shape, slot.dtype) << " @ buffer " << slot.buffer
       << " [" << slot.offset << ", " << slot.offset + slot.size << ")\n";
  }
}

void capture::printCapmod(llvm::ArrayRef<uint8_t> bytes,
                          llvm::raw_ostream &os) {
  rt::Result<rt::ModuleDesc> read = rt::readCapmod(bytes.data(), bytes.size());
  if (read.isError()) {
    os << "invalid module: " << read.message() << "\n";
    return;
  }
  const rt::ModuleDesc &module = read.value();
  os << "capmod version " << module.formatVersion << ", binding alignment "
     << module.target.bindingAlignment << "\n";
  for (auto [i, buffer] : llvm::enumerate(module.buffers))
    os << "buffer " << i << ": " << rt::bufferKindName(buffer.kind) << ", "
       << buffer.size << " bytes\n";
  for (auto [i, kernel] : llvm::enumerate(module.kernels))
    os << "kernel " << i << ": " << kernel.name << ", " << kernel.numBindings
       << " bindings, " << kernel.spirv.size() << " words"
       << (kernel.subgroupMultiple
               ? ", subgroups of " + std::to_string(kernel.subgroupMultiple) +
                     "n lanes"
               : std::string())
       << "\n";
  if (const std::optional<rt::HostCodeDesc> &host = module.hostCode)
    os << "host code: " << host->isaLevel << " (" << host->triple << "), "
       << host->library.size() << " bytes, entry capture_k_<kernel>\n";
  for (const rt::WeightDesc &w : module.weights)
    os << "weight " << w.name << ' ' << rt::formatType(w.shape, w.dtype)
       << (w.trainable ? " trainable" : "") << " @ [" << w.offset << ", "
       << w.offset + w.size << ")"
       << (w.init          ? std::string(" initialized")
           : w.initializer ? " " + rt::describeInitializer(*w.initializer)
                           : std::string(" unset"))
       << "\n";
  if (module.constantsBuffer >= 0) {
    os << "constants: " << (module.constants ? module.constants->size() : 0)
       << " bytes";
    for (const rt::ConstantFillDesc &f : module.constantFills) {
      char bits[16];
      std::snprintf(bits, sizeof(bits), "0x%08x", f.value);
      os << ", fill [" << f.offset << ", " << f.offset + f.size
         << ") = " << bits;
    }
    os << "\n";
  }
  for (const rt::EntryDesc &entry : module.entries) {
    os << "entry " << entry.name << ": input buffer " << entry.inputBuffer
       << ", output buffer " << entry.outputBuffer << "\n";
    if (const std::optional<rt::TrainDesc> &train = entry.train) {
      auto range = [&](const rt::BufferRangeDesc &r) {
        os << r.buffer << "[" << r.offset << ", " << r.offset + r.size << ")";
      };
      const rt::AdamWDesc &a = train->adamw;
      os << "  train: adamw lr=" << a.lr << " beta1=" << a.beta1
         << " beta2=" << a.beta2 << " eps=" << a.eps
         << " weight_decay=" << a.weightDecay;
      // Like #ag.adamw, the mode only when it is not the default.
      if (!a.decoupled)
        os << " decoupled=false";
      for (auto [g, group] : llvm::enumerate(train->groups))
        os << ", group " << g + 1 << " lr=" << group.lr
           << " beta1=" << group.beta1 << " beta2=" << group.beta2
           << " eps=" << group.eps << " weight_decay=" << group.weightDecay;
      if (train->maxGradNorm)
        os << ", max_grad_norm=" << *train->maxGradNorm << " (input "
           << train->maxGradNormInput << ")";
      os << ", hyperparameters input " << train->hyperInput
         << ", grad norm output " << train->gradNormOutput << "\n  params ";
      range(train->params);
      os << ", moments ";
      range(train->moment1);
      os << " ";
      range(train->moment2);
      os << "\n";
    }
    printSlots("input", entry.inputs, os);
    printSlots("output", entry.outputs, os);
    printSlots("probe", entry.probes, os);
    for (const rt::CommandDesc &command : entry.commands) {
      if (command.kind == rt::CommandDesc::Kind::Barrier) {
        os << "  barrier\n";
        continue;
      }
      const rt::DispatchDesc &d = command.dispatch;
      os << "  dispatch " << module.kernels[d.kernel].name << " groups [";
      llvm::interleaveComma(d.groups, os);
      os << "]";
      for (auto [b, range] : llvm::enumerate(d.bindings))
        os << (llvm::is_contained(d.writes, b) ? " write " : " read ")
           << range.buffer << "[" << range.offset << ", "
           << range.offset + range.size << ")";
      os << "\n";
    }
  }
}
