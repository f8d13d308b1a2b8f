//===- mlir_fuzzer.cpp - libFuzzer target for the compiler ----------------===//
//
// What capture-aot does with a .mlir file from a user, on arbitrary text:
// parse, verify, the guard and the whole pipeline down to SPIR-V, the module
// writer (which runs the loader's checks first), then the loader and the
// module printer on what was written. The input's length picks the pipeline
// options (target lavapipe or gpu, fusion on or off) so that one corpus
// reaches every kernel family.
//
// A bug is: a crash, a sanitizer report, an assertion, a parse or pipeline
// failure that says nothing (a user would get exit code 1 and no message),
// or a written module that the runtime's loader refuses.
//
//===----------------------------------------------------------------------===//

#include "capture/Compiler/Compiler.h"
#include "capture/InitAll.h"
#include "capture/Target/Capmod.h"

#include "capture/rt/capmod.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;

/// Stops the run with `why` and the input, so that the report says which
/// invariant broke (libFuzzer then saves the input).
[[noreturn]] static void fail(const char *why, const std::string &detail) {
  std::fprintf(stderr, "mlir_fuzzer: %s\n%s\n", why, detail.c_str());
  std::abort();
}

static const DialectRegistry &registry() {
  static DialectRegistry *shared = [] {
    auto *r = new DialectRegistry();
    registerAllDialects(*r);
    capture::registerAllDialects(*r);
    return r;
  }();
  return *shared;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // One context per input: nothing one input interns or loads can change
  // what the next one gets.
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(false);
  unsigned errors = 0;
  std::string firstError;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && errors++ == 0)
      firstError = diag.str();
    return success();
  });

  // A std::string ends in a NUL, as a file read by capture-aot does. The
  // tools' parse: any error refuses the input (a module the parser returns
  // after a lexer error too, found by this fuzzer).
  std::string text(reinterpret_cast<const char *>(data), size);
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, "fuzz.mlir"), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = capture::parseModule(sources, &context);
  if (!module) {
    if (errors == 0)
      fail("the parser failed without an error", text);
    return 0;
  }

  capture::CompileOptions options;
  options.target = (size & 1) ? "gpu" : "lavapipe";
  options.fuse = (size & 2) == 0;
  capture::CompileHooks hooks;
  hooks.lowered = [&](ModuleOp) {
    if (errors != 0)
      fail("the pipeline succeeded after an error", firstError + "\n" + text);
    return success();
  };
  FailureOr<std::vector<uint8_t>> bytes =
      capture::compileToCapmod(*module, options, hooks);
  if (failed(bytes)) {
    if (errors == 0)
      fail("the compile failed without an error", text);
    return 0;
  }
  if (errors != 0)
    fail("the module writer succeeded after an error",
         firstError + "\n" + text);

  capture::rt::Result<capture::rt::ModuleDesc> desc =
      capture::rt::readCapmod(bytes->data(), bytes->size());
  if (desc.isError())
    fail("the loader refused what the compiler wrote",
         desc.status().message() + "\n" + text);
  std::string summary;
  llvm::raw_string_ostream os(summary);
  capture::printCapmod(*bytes, os);
  return 0;
}
