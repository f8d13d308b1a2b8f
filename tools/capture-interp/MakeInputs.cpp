//===- MakeInputs.cpp - Deterministic random inputs of an entry -----------===//

#include "ToolSupport.h"

#include "capture/Dialect/Ag/IR/AgOps.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace capture;
using namespace capture::interp;
using reference::Entry;

/// splitmix64: tiny, well mixed, and specified bit for bit, so every machine
/// produces the same inputs for the same seed.
static uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// FNV-1a of `name`: gives each input its own stream, so that an input's
/// data does not change when other inputs are added or reordered.
static uint64_t hashName(llvm::StringRef name) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : name)
    hash = (hash ^ c) * 0x100000001b3ULL;
  return hash;
}

/// Keeps a mistyped shape from filling the disk.
static constexpr int64_t kMaxGeneratedElements = int64_t(1) << 28;

/// The largest bound of --make-inputs for i32 inputs: every non-negative
/// i32 value is below it.
static constexpr int64_t kMaxIndexBound = 2147483647;

/// The K of --make-inputs for the i32 entry argument `arg`: values in
/// [0, K) are valid for every ag.cross_entropy or ag.one_hot it labels
/// (K <= classes) and every ag.get_rows or ag.scatter_add_rows it indexes
/// (K <= rows); see the help of --make-inputs.
/// `why` receives what the bound comes from.
static int64_t indexBound(BlockArgument arg, std::string &why) {
  int64_t bound = kMaxIndexBound;
  why = "it indexes nothing";
  auto limitTo = [&](int64_t limit, Operation *op, llvm::StringRef what) {
    if (limit >= bound)
      return;
    bound = limit;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << what << " of the '" << op->getName() << "' at " << op->getLoc();
    why = text;
  };
  // i32 values only come from entry arguments and only these four ops read
  // them as indices, so the direct uses are all there is to inspect.
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    if (auto ce = llvm::dyn_cast<capture::ag::CrossEntropyOp>(user)) {
      if (use.getOperandNumber() == ce.getLabelsMutable().getOperandNumber())
        limitTo(ce.getLogits().getType().getDimSize(1), ce,
                "the classes (logits dimension 1)");
    } else if (auto rows = llvm::dyn_cast<capture::ag::GetRowsOp>(user)) {
      if (use.getOperandNumber() == rows.getIndicesMutable().getOperandNumber())
        limitTo(rows.getTable().getType().getDimSize(0), rows,
                "the rows (table dimension 0)");
    } else if (auto hot = llvm::dyn_cast<capture::ag::OneHotOp>(user)) {
      limitTo(hot.getResult().getType().getDimSize(1), hot,
              "the classes (result dimension 1)");
    } else if (auto scatter =
                   llvm::dyn_cast<capture::ag::ScatterAddRowsOp>(user)) {
      if (use.getOperandNumber() ==
          scatter.getIndicesMutable().getOperandNumber())
        limitTo(scatter.getResult().getType().getDimSize(0), scatter,
                "the rows (result dimension 0)");
    }
  }
  return bound;
}

int interp::makeInputs(Entry entry, StringRef dir, uint64_t seed) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return fail("cannot create directory " + dir + ": " + ec.message());
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
    // The runtime fills the hyperparameter inputs; random data is no value
    // for them.
    if (!entry.getHyperKind(i).empty())
      continue;
    llvm::StringRef name = entry.getInputName(i);
    if (!isSafeFileName(name))
      return fail("input name '" + name + "' cannot be used as a file name");
    BlockArgument arg = entry.getArgument(i);
    auto type = llvm::cast<RankedTensorType>(arg.getType());
    int64_t count = 1;
    for (int64_t dim : type.getShape())
      if (llvm::MulOverflow(count, dim, count) || count > kMaxGeneratedElements)
        return fail("input '" + name + "' of shape " +
                    capture::ag::formatShape(type.getShape()) +
                    " has more elements than --make-inputs writes (" +
                    llvm::Twine(kMaxGeneratedElements) + ")");
    rt::DType dtype = dtypeOf(type);
    uint64_t state = seed ^ hashName(name);
    Tensor tensor;
    tensor.shape.assign(type.getShape().begin(), type.getShape().end());
    tensor.data.resize(count);
    std::string range;
    if (dtype == rt::DType::I32) {
      std::string why;
      int64_t bound = indexBound(arg, why);
      if (bound == 0 && count > 0)
        return fail("input '" + name + "' has no valid value: it indexes " +
                    why + ", which is empty");
      // The top 32 bits scaled to [0, bound): (x * bound) >> 32 < 2^63.
      for (double &value : tensor.data)
        value = static_cast<double>(
            ((splitmix64(state) >> 32) * static_cast<uint64_t>(bound)) >> 32);
      range = " (i32 in [0, " + std::to_string(bound) + "))";
    } else {
      // 24 random bits give a multiple of 2^-23 in [-1, 1): exact in float.
      for (double &value : tensor.data)
        value = static_cast<double>(splitmix64(state) >> 40) * 0x1p-23 - 1.0;
    }
    std::string path = npyPath(dir, name);
    if (!writeTensor(path, tensor, dtype))
      return 1;
    llvm::outs() << "wrote input " << name << ' '
                 << capture::ag::formatShape(tensor.shape) << range << " to "
                 << path << '\n';
  }
  return 0;
}
