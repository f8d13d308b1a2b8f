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
// With --steps N it trains instead, as the device runner (capture-run) does:
// the training step is split first if needed (ag-autodiff, ag-pack-params,
// ag-insert-clip-scale, ag-split-update), then run N times with AdamW,
// carrying weights, moments and the step counter from step to step and
// filling the runtime's `adamw` and `max_grad_norm` inputs itself. Each step
// prints
//   step K: loss=<%.9g> grad_norm=<%.9g>
// or, when the gradient norm is not finite and the update is refused,
//   step K: update not applied: grad_norm is nan; weights, moments and the
//   step counter are unchanged
// (one line). A refused step ends the run with exit code 1 unless
// --keep-going, which runs every step and exits 1 at the end.
//
//===----------------------------------------------------------------------===//

#include "TrainSteps.h"

#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/InitAll.h"
#include "capture/Reference/Interpreter.h"
#include "capture/Reference/Training.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace capture::reference;
using namespace capture::interp;
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

static cl::OptionCategory stepsCategory(
    "capture-interp training options (--steps)",
    "Run an ag.train_step N times with AdamW, as the device runner does; "
    "--output-dir and --compare then apply to the last step's outputs");
static cl::opt<uint64_t>
    steps("steps",
          cl::desc("Train: run the ag.train_step N times, carrying weights, "
                   "AdamW moments and the step counter (splitting the step "
                   "with ag-autodiff, ag-pack-params, ag-insert-clip-scale "
                   "and ag-split-update first when it is not split)"),
          cl::value_desc("N"), cl::cat(stepsCategory));
static cl::list<std::string>
    lrAtArgs("lr-at",
             cl::desc("Set the learning rate before step K (1-based); it is "
                      "kept for the following steps"),
             cl::value_desc("K=VALUE"), cl::cat(stepsCategory));
static cl::list<std::string> maxGradNormAtArgs(
    "max-grad-norm-at",
    cl::desc("Set the gradient clipping limit before step K; it is kept "
             "for the following steps"),
    cl::value_desc("K=VALUE"), cl::cat(stepsCategory));
static cl::list<std::string>
    inputAtArgs("input-at", cl::desc("Replace input NAME for step K only"),
                cl::value_desc("K:NAME=FILE.npy"), cl::cat(stepsCategory));
static cl::opt<bool>
    keepGoing("keep-going",
              cl::desc("Continue after a step whose update is refused "
                       "(non-finite gradient norm); exit 1 at the end"),
              cl::cat(stepsCategory));
static cl::opt<std::string>
    saveParamsDir("save-params",
                  cl::desc("After the last step, write every weight to "
                           "DIR/<name>.npy"),
                  cl::value_desc("dir"), cl::cat(stepsCategory));
static cl::opt<std::string> dumpStateDir(
    "dump-state",
    cl::desc("After every step K, write every weight, the AdamW moments "
             "(adam.m.npy, adam.v.npy) and the step counter t (t.txt) to "
             "DIR/step-K/"),
    cl::value_desc("dir"), cl::cat(stepsCategory));

/// The options that only apply to --steps, for the error naming them.
static bool usesStepOptions() {
  return !lrAtArgs.empty() || !maxGradNormAtArgs.empty() ||
         !inputAtArgs.empty() || keepGoing || !saveParamsDir.empty() ||
         !dumpStateDir.empty();
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
  cl::HideUnrelatedOptions({&category, &stepsCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "Capture reference interpreter: evaluates an ag.forward or "
      "ag.train_step entry on the CPU, or trains an ag.train_step for "
      "--steps steps\n");

  bool training = steps.getNumOccurrences() > 0;
  bool evaluating =
      !inputArgs.empty() || !paramArgs.empty() || !outputDir.empty() ||
      !compareDir.empty() || precision.getNumOccurrences() ||
      tolerance.getNumOccurrences() || training || usesStepOptions();
  if (!makeInputsDir.empty() && evaluating)
    return fail("--make-inputs only writes inputs; run again without it to "
                "evaluate (drop --input/--param/--precision/--output-dir/"
                "--compare/--tolerance and the --steps options)");
  if (seed.getNumOccurrences() && makeInputsDir.empty())
    return fail("--seed only applies to --make-inputs");
  if (!(tolerance >= 0.0))
    return fail("--tolerance must be a non-negative number");
  if (training && steps < 1)
    return fail("--steps expects a number of steps >= 1, got " +
                llvm::Twine(steps));
  if (!training && usesStepOptions())
    return fail("--lr-at, --max-grad-norm-at, --input-at, --keep-going, "
                "--save-params and --dump-state only apply to training; "
                "add --steps N");

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
    return makeInputs(*entry, makeInputsDir, seed);

  if (training) {
    if (!entry->isTrainStep())
      return fail("--steps trains an ag.train_step, but @" +
                  entry->getSymName() + " is an " + entry->getKindName());
    if (!entry->hasUpdate()) {
      // The passes rewrite the step in place; look it up again anyway.
      std::string name = entry->getSymName().str();
      if (failed(splitTrainSteps(*module)) ||
          failed(entry = lookupEntry(*module, name)))
        return 1;
    }
  }

  // The tool fills the runtime-owned inputs when it trains or evaluates a
  // split step; an unsplit step's (e.g. max_grad_norm after
  // ag-insert-clip-scale alone) are ordinary inputs the caller gives.
  if ((training || entry->hasUpdate()) &&
      !checkNoRuntimeInputs(*entry, inputArgs, "input"))
    return 1;
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
  std::optional<std::map<std::string, Tensor>> params =
      readNamedTensors(paramArgs, "param", "weight",
                       [](llvm::StringRef) { return rt::DType::F32; });
  if (!params)
    return 1;

  std::map<std::string, rt::DType> dtypes = outputDTypes(*entry);
  EvalResult result;
  int exitCode = 0;
  if (training) {
    StepsOptions options;
    options.steps = steps;
    options.lrAt = lrAtArgs;
    options.maxGradNormAt = maxGradNormAtArgs;
    options.inputAt = inputAtArgs;
    options.keepGoing = keepGoing;
    options.saveParams = saveParamsDir;
    options.dumpState = dumpStateDir;
    options.precision = precision;
    std::optional<StepsOutcome> outcome =
        runSteps(*module, *entry, *inputs, std::move(*params), options);
    if (!outcome)
      return 1;
    result = std::move(outcome->last);
    exitCode = outcome->exitCode;
  } else {
    if (entry->hasUpdate()) {
      // A split step reads the runtime's inputs: those of its first step.
      FailureOr<TrainingHyper> hyper = getCompiledHyper(*entry);
      if (failed(hyper) || failed(fillHyperInputs(*entry, TrainingState(),
                                                  *hyper, precision, *inputs)))
        return 1;
    }
    EvalOptions options;
    options.precision = precision;
    options.weights = std::move(*params);
    FailureOr<EvalResult> evaluated =
        evaluate(*module, entry->getSymName(), *inputs, options);
    if (failed(evaluated))
      return 1;
    result = std::move(*evaluated);
    // Outputs in the entry's order, which is how a reader thinks of them.
    for (unsigned i = 0, e = entry->getNumResults(); i < e; ++i) {
      std::string name = entry->getOutputName(i).str();
      printTensor("output", name, result.outputs.at(name), dtypes[name]);
    }
    // Probes mark f32 intermediates.
    for (const auto &[name, tensor] : result.probes)
      printTensor("probe", name, tensor, rt::DType::F32);
  }

  if (!outputDir.empty() && !writeResult(outputDir, result, dtypes))
    return 1;

  if (!compareDir.empty()) {
    bool allOk = true;
    for (unsigned i = 0, e = entry->getNumResults(); i < e; ++i) {
      std::string name = entry->getOutputName(i).str();
      if (!isSafeFileName(name)) {
        fail("output name '" + name + "' cannot be used as a file name");
        allOk = false;
        continue;
      }
      allOk &= compareOutput(name, result.outputs.at(name), dtypes[name]);
    }
    if (!allOk)
      return 1;
  }
  return exitCode;
}
