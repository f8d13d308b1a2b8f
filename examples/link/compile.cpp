//===- compile.cpp - The compile API, from an installed Capture -----------===//
//
// What capture-aot does, as a program of one's own: parse an `ag` module
// and compile it to module-file bytes with capture::compileToCapmod.
//
//   usage: capture-link-compile IN.mlir OUT.capmod [TARGET]
//
//===----------------------------------------------------------------------===//

#include "capture/Compiler/Compiler.h"
#include "capture/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s IN.mlir OUT.capmod [TARGET]\n", argv[0]);
    return 2;
  }
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  capture::registerAllDialects(registry);
  mlir::MLIRContext context(registry);

  std::string error;
  auto file = mlir::openInputFile(argv[1], &error);
  if (!file) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sources, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      capture::parseModule(sources, &context);
  if (!module)
    return 1;
  capture::CompileOptions options;
  if (argc == 4)
    options.target = argv[3];
  mlir::FailureOr<std::vector<uint8_t>> bytes =
      capture::compileToCapmod(*module, options);
  if (mlir::failed(bytes))
    return 1;
  auto out = mlir::openOutputFile(argv[2], &error);
  if (!out) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  out->os().write(reinterpret_cast<const char *>(bytes->data()), bytes->size());
  out->keep();
  std::printf("compiled %s for %s: %zu bytes\n", argv[1],
              options.target.c_str(), bytes->size());
  return 0;
}
