//===- Compiler.h - Compile an ag module into .capmod bytes -----*- C++ -*-===//
//
// The one way from `ag` source or IR to a module file: capture-aot, the
// tracer (and through it the Python package) and the fuzzer all compile
// through here, so a new pipeline stage, target or writer check reaches
// every front end at once.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_COMPILER_COMPILER_H
#define CAPTURE_COMPILER_COMPILER_H

#include "capture/Pipelines/CompileOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class PassManager;
} // namespace mlir

namespace capture {

/// Where a tool watches or extends a compile; each hook may be empty.
struct CompileHooks {
  /// Called on the pass manager before it runs: MLIR's command-line
  /// instrumentation, timing.
  std::function<mlir::LogicalResult(mlir::PassManager &)> configure;
  /// Called on the lowered module before it is written: printing the IR,
  /// dumping the kernels.
  std::function<mlir::LogicalResult(mlir::ModuleOp)> lowered;
};

/// Parses the main buffer of `sources` as a module. Any error while parsing
/// refuses the input: MLIR's parser can return a module after reporting a
/// lexer error inside an optional parse (a stray '@' after an attribute,
/// found by the fuzzer). Errors go to the context's handlers.
mlir::OwningOpRef<mlir::ModuleOp> parseModule(llvm::SourceMgr &sources,
                                              mlir::MLIRContext *context);

/// Compiles `module` in place (the guard, the training-step passes, the
/// lowering to kernels and replay schedules) and writes it as .capmod
/// bytes. Errors are reported to the context's diagnostic handlers.
mlir::FailureOr<std::vector<uint8_t>>
compileToCapmod(mlir::ModuleOp module, const CompileOptions &options,
                const CompileHooks &hooks = {});

} // namespace capture

#endif // CAPTURE_COMPILER_COMPILER_H
