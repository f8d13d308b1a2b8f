//===- Entry.cpp - The entries the reference interpreter evaluates --------===//

#include "capture/Reference/Interpreter.h"

#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/Reference/Training.h"

using namespace mlir;
using namespace capture;
using namespace capture::reference;

Entry Entry::dynCast(Operation *op) {
  if (isa_and_nonnull<ag::ForwardOp, ag::TrainStepOp>(op))
    return Entry(cast<FunctionOpInterface>(op));
  return Entry();
}

StringRef Entry::getKindName() { return fn->getName().getStringRef(); }

StringRef Entry::getSymName() { return fn.getName(); }

unsigned Entry::getNumArguments() { return fn.getNumArguments(); }

BlockArgument Entry::getArgument(unsigned i) { return fn.getArgument(i); }

unsigned Entry::getNumResults() { return fn.getNumResults(); }

ArrayRef<Type> Entry::getResultTypes() { return fn.getResultTypes(); }

StringRef Entry::getInputName(unsigned i) {
  if (auto forward = dyn_cast<ag::ForwardOp>(fn.getOperation()))
    return forward.getInputName(i);
  return cast<ag::TrainStepOp>(fn.getOperation()).getInputName(i);
}

StringRef Entry::getOutputName(unsigned i) {
  if (auto forward = dyn_cast<ag::ForwardOp>(fn.getOperation()))
    return forward.getOutputName(i);
  return cast<ag::TrainStepOp>(fn.getOperation()).getOutputName(i);
}

bool Entry::isPacked() {
  return fn->hasAttr(ag::ForwardOp::getInputLayoutAttrName());
}

Block &Entry::getBody() { return fn.getFunctionBody().front(); }

bool Entry::isTrainStep() { return isa<ag::TrainStepOp>(fn.getOperation()); }

bool Entry::hasUpdate() {
  return !getBody().getOps<ag::ApplyAdamWOp>().empty();
}

StringRef Entry::getHyperKind(unsigned i) {
  if (auto kind = fn.getArgAttrOfType<StringAttr>(i, kHyperAttrName))
    return kind.getValue();
  return "";
}

FailureOr<Entry> reference::lookupEntry(ModuleOp module, StringRef entry) {
  SmallVector<Entry> entries;
  for (Operation &op : *module.getBody())
    if (Entry e = Entry::dynCast(&op))
      entries.push_back(e);
  if (entries.empty())
    return module.emitError() << "the module has no entry to evaluate "
                                 "(an ag.forward or an ag.train_step)";
  // Each entry with its kind, e.g. "@predict (ag.forward)".
  std::string names;
  for (auto [i, e] : llvm::enumerate(entries))
    names += (i ? ", @" : "@") + e.getSymName().str() + " (" +
             e.getKindName().str() + ")";
  if (entry.empty()) {
    if (entries.size() == 1)
      return entries.front();
    return module.emitError()
           << "the module has " << entries.size() << " entries (" << names
           << "); name the one to evaluate";
  }
  SmallVector<StringRef> known;
  for (Entry e : entries) {
    if (e.getSymName() == entry)
      return e;
    known.push_back(e.getSymName());
  }
  return module.emitError()
         << "unknown entry @" << entry << ag::suggestName(entry, known)
         << "; the module's entries are " << names;
}
