//===- capture-interp.cpp - Evaluate an ag entry on the CPU ---------------===//
//
// Runs the reference interpreter on one entry (`ag.forward` or
// `ag.train_step`, e.g. after ag-autodiff, whose outputs include the loss
// and the `grad/<weight>` gradients): prints (and optionally writes) its
// outputs and probes, compares them against another
// run's .npy files (e.g. the device's), or writes deterministic random
// inputs for it. i32 inputs and outputs (labels, indices) are read and
// written as i32 .npy files.
//
//===----------------------------------------------------------------------===//

#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/InitAll.h"
#include "capture/Reference/Interpreter.h"
#include "capture/rt/npy.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace capture::reference;
namespace cl = llvm::cl;
namespace rt = capture::rt;

static cl::OptionCategory category("capture-interp options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Required, cl::cat(category));
static cl::opt<std::string>
    entryName("entry",
              cl::desc("ag.forward or ag.train_step entry to evaluate "
                       "(optional when the module has exactly one)"),
              cl::value_desc("name"), cl::cat(category));
static cl::list<std::string>
    inputArgs("input",
              cl::desc("An input of the entry, by its ag.name (an f32 .npy "
                       "file, or i32 for an i32 input)"),
              cl::value_desc("name=file.npy"), cl::cat(category));
static cl::list<std::string>
    paramArgs("param", cl::desc("Replaces the initial value of weight @name"),
              cl::value_desc("name=file.npy"), cl::cat(category));
static cl::opt<Precision> precision(
    "precision", cl::desc("Arithmetic of the evaluation"),
    cl::values(clEnumValN(Precision::F32, "f32",
                          "round every result to float, as the device does "
                          "(default)"),
               clEnumValN(Precision::F64, "f64", "compute in double")),
    cl::init(Precision::F32), cl::cat(category));
static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write every output and probe to DIR/<name>.npy (f32, "
                       "or i32 for an i32 output)"),
              cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string>
    compareDir("compare",
               cl::desc("Compare every output with DIR/<name>.npy; exit 1 "
                        "when one differs by more than --tolerance"),
               cl::value_desc("dir"), cl::cat(category));
static cl::opt<double>
    tolerance("tolerance",
              cl::desc("Largest accepted max-abs-error / max(|reference|) "
                       "for --compare (default 1e-5)"),
              cl::init(1e-5), cl::cat(category));
static cl::opt<std::string> makeInputsDir(
    "make-inputs",
    cl::desc("Instead of evaluating, write random data for every input of "
             "the entry to DIR/<name>.npy: uniform [-1, 1) for f32 inputs, "
             "uniform integers in [0, K) for i32 inputs (K: see below)"),
    cl::value_desc("dir"), cl::cat(category));
static cl::extrahelp makeInputsHelp(R"(
--make-inputs and i32 inputs (labels, indices):
  Each value is drawn uniformly from [0, K), where K makes every value valid
  for each op the input feeds:
    - ag.cross_entropy labels: K = C, the logits' dimension 1 (classes);
    - ag.one_hot labels:       K = C, the result's dimension 1 (classes);
    - ag.get_rows indices:     K = V, the table's dimension 0 (rows);
    - ag.scatter_add_rows indices: K = V, the result's dimension 0 (rows);
    - both, or several such ops: the smallest of these Ks;
    - neither (e.g. the input is only returned): K = 2^31 - 1, any
      non-negative i32.
  An input that must index an empty dimension (K = 0) is refused.
  The range used is printed with each i32 input written.
)");
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of --make-inputs (default 0)"),
                              cl::init(0), cl::cat(category));

/// Prints `capture-interp: error: <message>` and returns the exit code.
static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "capture-interp") << message << "\n";
  return 1;
}

/// Whether `name` can be used as `<dir>/<name>.npy` without leaving `dir`.
static bool isSafeFileName(llvm::StringRef name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of(llvm::StringRef("/\\\0", 3)) ==
             llvm::StringRef::npos;
}

/// `dir/<name>.npy`.
static std::string npyPath(llvm::StringRef dir, llvm::StringRef name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name + ".npy");
  return std::string(path);
}

/// The dtype of a tensor of `type` in .npy files: i32 for labels and
/// indices, f32 for everything else.
static rt::DType dtypeOf(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isInteger(32) ? rt::DType::I32
                                                         : rt::DType::F32;
}

/// Reads a .npy file holding `dtype` data as a Tensor (i32 values are held
/// exactly); `what` names it in errors.
static std::optional<Tensor>
readTensor(const std::string &path, const std::string &what, rt::DType dtype) {
  rt::Result<rt::HostTensor> file = rt::readNpyFile(path);
  if (file.isError()) {
    fail(what + ": " + file.message());
    return std::nullopt;
  }
  if (file->dtype != dtype) {
    fail(what + ": " + path + " holds " + rt::dtypeName(file->dtype) +
         " data, expected " + rt::dtypeName(dtype));
    return std::nullopt;
  }
  Tensor tensor;
  tensor.shape = file->shape;
  if (dtype == rt::DType::I32) {
    for (int32_t value : file->asI32())
      tensor.data.push_back(value);
  } else {
    for (float value : file->asF32())
      tensor.data.push_back(value);
  }
  return tensor;
}

/// Writes `tensor` as a .npy file of `dtype`.
static bool writeTensor(const std::string &path, const Tensor &tensor,
                        rt::DType dtype) {
  rt::HostTensor host;
  if (dtype == rt::DType::I32) {
    // The interpreter checked that i32 values are 32-bit integers.
    std::vector<int32_t> values(tensor.data.begin(), tensor.data.end());
    host = rt::HostTensor::i32(tensor.shape, values);
  } else {
    std::vector<float> values(tensor.data.begin(), tensor.data.end());
    host = rt::HostTensor::f32(tensor.shape, values);
  }
  rt::Status status = rt::writeNpyFile(path, host);
  if (status.isError()) {
    fail("cannot write " + path + ": " + status.message());
    return false;
  }
  return true;
}

/// Parses repeated `name=file.npy` options into tensors by name;
/// `expectedDType` gives the dtype each name's file must hold.
static std::optional<std::map<std::string, Tensor>>
readNamedTensors(const cl::list<std::string> &args, llvm::StringRef option,
                 llvm::StringRef kind,
                 llvm::function_ref<rt::DType(llvm::StringRef)> expectedDType) {
  std::map<std::string, Tensor> tensors;
  for (const std::string &arg : args) {
    auto [name, path] = llvm::StringRef(arg).split('=');
    if (name.empty() || path.empty() || name.size() == arg.size()) {
      fail("--" + option + " expects name=file.npy, got '" + arg + "'");
      return std::nullopt;
    }
    if (tensors.count(name.str())) {
      fail("--" + option + " gives " + kind + " '" + name + "' twice");
      return std::nullopt;
    }
    std::optional<Tensor> tensor = readTensor(
        path.str(), (kind + " '" + name + "'").str(), expectedDType(name));
    if (!tensor)
      return std::nullopt;
    tensors[name.str()] = std::move(*tensor);
  }
  return tensors;
}

/// `value` as %g, except that every NaN prints as `nan`: the sign of a NaN
/// (x86 makes sqrt(-1) negative) is noise that would differ between machines.
static std::string formatValue(double value) {
  if (std::isnan(value))
    return "nan";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

/// Prints `<kind> <name> [d0, d1]: v0 v1 ...` with the first 8 values;
/// i32 values print as integers (%g would round large ones).
static void printTensor(llvm::StringRef kind, llvm::StringRef name,
                        const Tensor &tensor, rt::DType dtype) {
  llvm::outs() << kind << ' ' << name << ' '
               << capture::ag::formatShape(tensor.shape) << ':';
  constexpr size_t kShown = 8;
  for (size_t i = 0; i < std::min(kShown, tensor.data.size()); ++i) {
    if (dtype == rt::DType::I32)
      llvm::outs() << ' ' << static_cast<int64_t>(tensor.data[i]);
    else
      llvm::outs() << ' ' << formatValue(tensor.data[i]);
  }
  if (tensor.data.size() > kShown)
    llvm::outs() << " ...";
  llvm::outs() << '\n';
}

//===----------------------------------------------------------------------===//
// --make-inputs
//===----------------------------------------------------------------------===//

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
/// (K <= rows); see makeInputsHelp.
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

static int makeInputs(Entry entry) {
  if (std::error_code ec = llvm::sys::fs::create_directories(makeInputsDir))
    return fail("cannot create directory " + makeInputsDir + ": " +
                ec.message());
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
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
    std::string path = npyPath(makeInputsDir, name);
    if (!writeTensor(path, tensor, dtype))
      return 1;
    llvm::outs() << "wrote input " << name << ' '
                 << capture::ag::formatShape(tensor.shape) << range << " to "
                 << path << '\n';
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// --compare
//===----------------------------------------------------------------------===//

/// Compares output `name` (the reference, of `dtype`) with
/// `<compareDir>/<name>.npy`, which must hold `dtype` data;
/// prints the verdict and returns whether it is within tolerance.
static bool compareOutput(llvm::StringRef name, const Tensor &reference,
                          rt::DType dtype) {
  std::string path = npyPath(compareDir, name);
  std::optional<Tensor> other =
      readTensor(path, ("compare " + name).str(), dtype);
  if (!other)
    return false;
  if (other->shape != reference.shape) {
    fail("compare " + name + ": " + path + " has shape " +
         capture::ag::formatShape(other->shape) + ", but output '" + name +
         "' has shape " + capture::ag::formatShape(reference.shape));
    return false;
  }
  double maxErr = 0.0, scale = 0.0;
  size_t mismatches = 0, firstMismatch = 0;
  for (size_t i = 0, e = reference.data.size(); i < e; ++i) {
    double want = reference.data[i], got = other->data[i];
    if (std::isfinite(want))
      scale = std::max(scale, std::fabs(want));
    // Equal values include equal infinities; NaN at the same place counts
    // as agreement. Any other non-finite value on one side is a mismatch,
    // which no finite error could express.
    if (want == got || (std::isnan(want) && std::isnan(got)))
      continue;
    if (!std::isfinite(want) || !std::isfinite(got)) {
      if (mismatches++ == 0)
        firstMismatch = i;
      continue;
    }
    maxErr = std::max(maxErr, std::fabs(want - got));
  }
  if (scale == 0.0)
    scale = 1.0;
  double relative = maxErr / scale;
  bool ok = mismatches == 0 && relative <= tolerance;
  if (mismatches)
    llvm::outs() << "compare " << name << ": " << mismatches
                 << " value(s) non-finite on one side only (first at index "
                 << firstMismatch << ": reference "
                 << formatValue(reference.data[firstMismatch]) << ", compared "
                 << formatValue(other->data[firstMismatch]) << ")\n";
  llvm::outs() << "compare " << name << ": max abs err " << formatValue(maxErr)
               << ", scale " << formatValue(scale) << ", relative "
               << formatValue(relative) << ": " << (ok ? "ok" : "FAIL") << '\n';
  return ok;
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "Capture reference interpreter: evaluates an ag.forward or "
      "ag.train_step entry on the CPU\n");

  bool evaluating = !inputArgs.empty() || !paramArgs.empty() ||
                    !outputDir.empty() || !compareDir.empty() ||
                    precision.getNumOccurrences() ||
                    tolerance.getNumOccurrences();
  if (!makeInputsDir.empty() && evaluating)
    return fail("--make-inputs only writes inputs; run again without it to "
                "evaluate (drop --input/--param/--precision/--output-dir/"
                "--compare/--tolerance)");
  if (seed.getNumOccurrences() && makeInputsDir.empty())
    return fail("--seed only applies to --make-inputs");
  if (!(tolerance >= 0.0))
    return fail("--tolerance must be a non-negative number");

  DialectRegistry registry;
  capture::registerAllDialects(registry);
  MLIRContext context(registry);
  // The diagnostics point at the source line; a dump of the op adds noise.
  context.printOpOnDiagnostic(false);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &errorMessage);
  if (!file)
    return fail(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return 1;

  if (entryName.empty()) {
    SmallVector<Entry> entries;
    for (Operation &op : *module->getBody())
      if (Entry entry = Entry::dynCast(&op))
        entries.push_back(entry);
    if (entries.size() > 1) {
      std::string names;
      for (Entry entry : entries)
        names += (names.empty() ? "@" : ", @") + entry.getSymName().str();
      return fail("the module has " + llvm::Twine(entries.size()) +
                  " entries (" + names + "); pick one with --entry");
    }
  }
  FailureOr<Entry> entry = lookupEntry(*module, entryName);
  if (failed(entry))
    return 1;

  if (!makeInputsDir.empty())
    return makeInputs(*entry);

  std::optional<std::map<std::string, Tensor>> inputs =
      readNamedTensors(inputArgs, "input", "input", [&](llvm::StringRef name) {
        // An unknown name is reported by the interpreter, with the list of
        // the entry's inputs; f32 is as good a guess as any until then.
        for (unsigned i = 0, e = entry->getNumArguments(); i < e; ++i)
          if (entry->getInputName(i) == name)
            return dtypeOf(entry->getArgument(i).getType());
        return rt::DType::F32;
      });
  if (!inputs)
    return 1;
  EvalOptions options;
  options.precision = precision;
  std::optional<std::map<std::string, Tensor>> params =
      readNamedTensors(paramArgs, "param", "weight",
                       [](llvm::StringRef) { return rt::DType::F32; });
  if (!params)
    return 1;
  options.weights = std::move(*params);

  FailureOr<EvalResult> result =
      evaluate(*module, entry->getSymName(), *inputs, options);
  if (failed(result))
    return 1;

  // Outputs in the entry's order, which is how a reader thinks of them.
  std::vector<std::string> outputNames;
  std::map<std::string, rt::DType> outputDTypes;
  for (unsigned i = 0, e = entry->getNumResults(); i < e; ++i) {
    outputNames.push_back(entry->getOutputName(i).str());
    outputDTypes[outputNames.back()] = dtypeOf(entry->getResultTypes()[i]);
  }
  for (const std::string &name : outputNames)
    printTensor("output", name, result->outputs.at(name), outputDTypes[name]);
  // Probes mark f32 intermediates.
  for (const auto &[name, tensor] : result->probes)
    printTensor("probe", name, tensor, rt::DType::F32);

  if (!outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create directory " + outputDir + ": " + ec.message());
    // Check every name before writing anything, so that a failed run
    // leaves no partial set of files behind.
    for (const auto &[name, tensor] : result->probes)
      if (result->outputs.count(name))
        return fail("probe '" + name + "' and output '" + name +
                    "' would both be written to " + npyPath(outputDir, name));
    for (const auto *tensors : {&result->outputs, &result->probes})
      for (const auto &[name, tensor] : *tensors)
        if (!isSafeFileName(name))
          return fail("'" + name + "' cannot be used as a file name in " +
                      outputDir);
    for (const auto &[name, tensor] : result->outputs)
      if (!writeTensor(npyPath(outputDir, name), tensor, outputDTypes[name]))
        return 1;
    for (const auto &[name, tensor] : result->probes)
      if (!writeTensor(npyPath(outputDir, name), tensor, rt::DType::F32))
        return 1;
  }

  if (!compareDir.empty()) {
    bool allOk = true;
    for (const std::string &name : outputNames) {
      if (!isSafeFileName(name)) {
        fail("output name '" + name + "' cannot be used as a file name");
        allOk = false;
        continue;
      }
      allOk &=
          compareOutput(name, result->outputs.at(name), outputDTypes[name]);
    }
    if (!allOk)
      return 1;
  }
  return 0;
}
