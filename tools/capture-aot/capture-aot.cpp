//===- capture-aot.cpp - Compile an ag module into a .capmod file ---------===//

#include "capture/InitAll.h"
#include "capture/Pipelines/Pipelines.h"
#include "capture/Target/Capmod.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
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
static cl::opt<int64_t> alignment("alignment",
                                  cl::desc("Binding offset alignment (bytes)"),
                                  cl::init(256), cl::cat(category));
static cl::opt<unsigned>
    workgroupSize("workgroup-size",
                  cl::desc("Invocations per workgroup (1 to 1024)"),
                  cl::init(64), cl::cat(category));
static cl::opt<std::string>
    target("target",
           cl::desc("Device preset the kernels are shaped for: lavapipe "
                    "(CPU Vulkan: texel-buffer reads; the default) or gpu"),
           cl::init("lavapipe"), cl::cat(category));
static cl::opt<bool>
    fuse("fuse",
         cl::desc("Group elementwise chains into dispatch regions, one "
                  "kernel each (default on; --fuse=false: one kernel per op)"),
         cl::init(true), cl::cat(category));
static cl::opt<bool> tileShuffles(
    "tile-shuffles",
    cl::desc("Matmul tiles of a subgroup share one operand's loads through "
             "subgroup shuffles (lavapipe; default on; --tile-shuffles=false: "
             "each lane loads its own)"),
    cl::init(true), cl::cat(category));
static cl::opt<unsigned> minMatmulWorkgroups(
    "min-matmul-workgroups",
    cl::desc("A matmul kernel whose tiles would fill fewer workgroups than "
             "this runs smaller ones, so that llvmpipe's threads share it "
             "(default 8; 0: never)"),
    cl::init(8), cl::cat(category));

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
  // MLIR's parser can return a module after reporting a lexer error (a
  // stray '@' after an attribute, found by the compiler's fuzzer): any
  // error while parsing refuses the input. The counter passes every
  // diagnostic on to the handler above.
  unsigned parseErrors = 0;
  OwningOpRef<ModuleOp> module;
  {
    ScopedDiagnosticHandler counter(&context, [&](Diagnostic &diag) {
      parseErrors += diag.getSeverity() == DiagnosticSeverity::Error;
      return failure();
    });
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module || parseErrors != 0)
    return 1;

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();
  pm.enableTiming(timing);
  capture::PipelineOptions options;
  options.alignment = alignment;
  options.workgroupSize = workgroupSize;
  options.target = target;
  options.fuse = fuse;
  options.tileShuffles = tileShuffles;
  options.minMatmulWorkgroups = minMatmulWorkgroups;
  capture::buildCapturePipeline(pm, options);
  if (failed(pm.run(*module)))
    return 1;
  if (printIR)
    module->print(llvm::outs());

  if (!dumpSpirvDir.empty() &&
      failed(capture::dumpSpirv(*module, dumpSpirvDir)))
    return 1;
  std::vector<uint8_t> bytes;
  if (failed(capture::writeCapmod(*module, bytes)))
    return 1;
  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "capture-aot: error: " << error << "\n";
    return 1;
  }
  output->os().write(reinterpret_cast<const char *>(bytes.data()),
                     bytes.size());
  output->keep();
  if (printModule)
    capture::printCapmod(bytes, llvm::outs());
  return 0;
}
