//===- Compiler.cpp - Compile an ag module into .capmod bytes -------------===//

#include "capture/Compiler/Compiler.h"

#include "capture/Pipelines/Pipelines.h"
#include "capture/Target/Capmod.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

OwningOpRef<ModuleOp> capture::parseModule(llvm::SourceMgr &sources,
                                           MLIRContext *context) {
  unsigned errors = 0;
  OwningOpRef<ModuleOp> module;
  {
    // Counts, and passes every diagnostic on to the handlers below it.
    ScopedDiagnosticHandler counter(context, [&](Diagnostic &diag) {
      errors += diag.getSeverity() == DiagnosticSeverity::Error;
      return failure();
    });
    module = parseSourceFile<ModuleOp>(sources, context);
  }
  if (errors != 0)
    return nullptr;
  return module;
}

FailureOr<std::vector<uint8_t>>
capture::compileToCapmod(ModuleOp module, const CompileOptions &options,
                         const CompileHooks &hooks) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  if (hooks.configure && failed(hooks.configure(pm)))
    return failure();
  buildCapturePipeline(pm, options);
  if (failed(pm.run(module)))
    return failure();
  if (hooks.lowered && failed(hooks.lowered(module)))
    return failure();
  std::vector<uint8_t> bytes;
  if (failed(writeCapmod(module, bytes)))
    return failure();
  return bytes;
}
