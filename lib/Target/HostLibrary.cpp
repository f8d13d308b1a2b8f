//===- HostLibrary.cpp - The cpu target's kernels as a shared object -----===//
//
// LLVM dialect -> LLVM IR -> -O3 -> x86-64 object -> ld.lld -shared. The
// linker runs as a subprocess (lld-22, from the same toolchain as MLIR).
//
//===----------------------------------------------------------------------===//

#include "capture/Target/HostLibrary.h"

#include "capture/Conversion/Passes.h"
#include "capture/rt/module_desc.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <memory>
#include <string_view>

using namespace mlir;

/// The triple the cpu target compiles for: the one the module format
/// allows (the runtime's loader is Linux's dlopen).
static constexpr const char *kHostTriple = capture::rt::kHostCodeTriple;

// The entry points the lowering names are those the runtime looks up.
static_assert(std::string_view(capture::kCPUEntryPrefix.data(),
                               capture::kCPUEntryPrefix.size()) ==
                  capture::rt::kHostEntryPrefix,
              "ag-cpu-kernels-to-llvm and the runtime disagree on the "
              "entry-point prefix");

/// ld.lld: beside the LLVM tools MLIR was built with, else on PATH.
static FailureOr<std::string> findLinker(ModuleOp host) {
  for (const char *name : {"ld.lld", "ld.lld-22"}) {
    llvm::ErrorOr<std::string> path =
        llvm::sys::findProgramByName(name, {CAPTURE_LLVM_TOOLS_DIR});
    if (!path)
      path = llvm::sys::findProgramByName(name);
    if (path)
      return *path;
  }
  return host.emitError()
         << "the cpu target links its kernels with ld.lld, found neither in "
         << CAPTURE_LLVM_TOOLS_DIR
         << " nor on PATH (Debian: apt-get install lld-22)";
}

/// The object file of `llvmModule` for kHostTriple at kHostCpuLevel.
static FailureOr<SmallString<0>> emitObject(ModuleOp host,
                                            llvm::Module &llvmModule) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string error;
  llvm::Triple triple(kHostTriple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return host.emitError()
           << "the cpu target needs LLVM's x86-64 backend: " << error;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, capture::kHostCpuLevel, "", llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return host.emitError() << "cannot create an LLVM target machine for "
                            << kHostTriple << " " << capture::kHostCpuLevel;
  llvmModule.setTargetTriple(triple);
  llvmModule.setDataLayout(machine->createDataLayout());
  auto optimize = makeOptimizingTransformer(3, 0, machine.get());
  if (llvm::Error err = optimize(&llvmModule))
    return host.emitError() << "optimizing the host kernels failed: "
                            << llvm::toString(std::move(err));

  SmallString<0> object;
  llvm::raw_svector_ostream stream(object);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, stream, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return host.emitError()
           << "LLVM cannot emit object files for " << kHostTriple;
  codegen.run(llvmModule);
  return object;
}

/// Links `object` into a self-contained shared object with `linker`.
static FailureOr<std::vector<uint8_t>>
linkShared(ModuleOp host, StringRef linker, StringRef object) {
  SmallString<128> in, out, log;
  int inFd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("capture-host", "o", inFd, in))
    return host.emitError()
           << "cannot create a temporary file: " << ec.message();
  auto removeIn = llvm::make_scope_exit([&] { llvm::sys::fs::remove(in); });
  {
    llvm::raw_fd_ostream file(inFd, /*shouldClose=*/true);
    file << object;
    if (file.has_error())
      return host.emitError()
             << "cannot write " << in << ": " << file.error().message();
  }
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("capture-host", "so", out))
    return host.emitError()
           << "cannot create a temporary file: " << ec.message();
  auto removeOut = llvm::make_scope_exit([&] { llvm::sys::fs::remove(out); });
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("capture-host", "log", log))
    return host.emitError()
           << "cannot create a temporary file: " << ec.message();
  auto removeLog = llvm::make_scope_exit([&] { llvm::sys::fs::remove(log); });

  // No libc or libm (the code calls nothing), every symbol resolved now,
  // nothing but the entry points exported.
  SmallVector<StringRef> args = {
      linker, "-shared", "-nostdlib", "--no-undefined",
      "-z",   "now",     "-z",        "noexecstack",
      "-o",   out,       in};
  std::string message;
  std::optional<StringRef> redirects[] = {std::nullopt, log, log};
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/120, 0, &message);
  if (rc != 0) {
    std::string output;
    if (auto text = llvm::MemoryBuffer::getFile(log))
      output = (*text)->getBuffer().trim().str();
    return host.emitError()
           << "linking the host kernels failed (" << linker << " exited with "
           << rc << (message.empty() ? "" : ": ") << message << "): " << output;
  }
  auto bytes = llvm::MemoryBuffer::getFile(out, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bytes)
    return host.emitError() << "cannot read the linked host kernels " << out
                            << ": " << bytes.getError().message();
  StringRef data = (*bytes)->getBuffer();
  return std::vector<uint8_t>(data.begin(), data.end());
}

FailureOr<capture::HostLibrary> capture::buildHostLibrary(ModuleOp host) {
  FailureOr<std::string> linker = findLinker(host);
  if (failed(linker))
    return failure();
  MLIRContext *ctx = host.getContext();
  registerBuiltinDialectTranslation(*ctx);
  registerLLVMDialectTranslation(*ctx);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(host, llvmContext, "capture_host_kernels");
  if (!llvmModule)
    return host.emitError() << "the host kernels do not translate to LLVM IR "
                               "(expected the LLVM dialect only, after "
                               "ag-cpu-kernels-to-llvm)";
  FailureOr<SmallString<0>> object = emitObject(host, *llvmModule);
  if (failed(object))
    return failure();
  FailureOr<std::vector<uint8_t>> bytes = linkShared(host, *linker, *object);
  if (failed(bytes))
    return failure();
  return HostLibrary{std::move(*bytes), kHostTriple, kHostCpuLevel};
}
