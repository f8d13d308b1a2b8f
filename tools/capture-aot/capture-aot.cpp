//===- capture-aot.cpp - Compile an ag module into a .capmod file ---------===//

#include "capture/Compiler/Compiler.h"
#include "capture/InitAll.h"
#include "capture/Target/Capmod.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

/// capture-aot's own options: --help lists these alone, not the options of
/// every LLVM backend that MLIR's libraries link in.
static cl::OptionCategory category("capture-aot options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Required, cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Output .capmod file"),
                                       cl::value_desc("file"), cl::Required,
                                       cl::cat(category));
static cl::opt<std::string> dumpSpirvDir(
    "dump-spirv",
    cl::desc("Also write every kernel's SPIR-V to DIR/<kernel>.spv"),
    cl::value_desc("dir"), cl::cat(category));
static cl::opt<bool> printIR("print-ir",
                             cl::desc("Print the lowered module to stdout"),
                             cl::cat(category));
static cl::opt<bool>
    printModule("print-module",
                cl::desc("Print a summary of the written module (buffers, "
                         "kernels, I/O slots, dispatches and barriers)"),
                cl::cat(category));
/// The compile's options, one flag each (CompileOptions.def).
static capture::CompileOptions compileOptions;
#define CAPTURE_COMPILE_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)               \
  static cl::opt<TYPE, /*ExternalStorage=*/true> FIELD##Flag(                  \
      FLAG, cl::desc(HELP), cl::location(compileOptions.FIELD),                \
      cl::init(capture::CompileOptions().FIELD), cl::cat(category));
#include "capture/Pipelines/CompileOptions.def"

/// Unlists every option outside capture-aot's own and the generic ones
/// (all stay usable), but for MLIR's --mlir-* debugging options, which
/// --help-hidden lists.
static void unlistForeignOptions() {
  cl::HideUnrelatedOptions(category);
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (name.starts_with("mlir-"))
      option->setHiddenFlag(cl::Hidden);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  unlistForeignOptions();
  cl::ParseCommandLineOptions(argc, argv,
                              "Capture ahead-of-time compiler: .mlir (ag "
                              "dialect) -> .capmod\n\n"
                              "MLIR's debugging options (--mlir-print-ir-"
                              "after-all, --mlir-timing, ...) are listed by "
                              "--help-hidden.\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  capture::registerAllDialects(registry);
  MLIRContext context(registry);
  // A pass's error on the whole module (a bad option) would print all of it
  // after the message: keep the message alone unless asked for the IR.
  if (!cl::getRegisteredOptions()
           .lookup("mlir-print-op-on-diagnostic")
           ->getNumOccurrences())
    context.printOpOnDiagnostic(false);

  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file) {
    llvm::errs() << "capture-aot: error: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = capture::parseModule(sourceMgr, &context);
  if (!module)
    return 1;

  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();
  capture::CompileHooks hooks;
  hooks.configure = [&](PassManager &pm) {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(timing);
    return success();
  };
  hooks.lowered = [&](ModuleOp lowered) {
    if (printIR)
      lowered.print(llvm::outs());
    if (dumpSpirvDir.empty())
      return success();
    return capture::dumpSpirv(lowered, dumpSpirvDir);
  };
  FailureOr<std::vector<uint8_t>> bytes =
      capture::compileToCapmod(*module, compileOptions, hooks);
  if (failed(bytes))
    return 1;
  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "capture-aot: error: " << error << "\n";
    return 1;
  }
  output->os().write(reinterpret_cast<const char *>(bytes->data()),
                     bytes->size());
  output->keep();
  if (printModule)
    capture::printCapmod(*bytes, llvm::outs());
  return 0;
}
