//===- CPUKernelsToLLVM.cpp - Host workgroup functions to the LLVM dialect ===//
//
// The functions of @__ag_cpu_kernels become self-contained LLVM code: math
// by polynomials (no libm to link or load), memrefs as bare pointers, and
// one entry point per kernel with the runtime's calling convention.
//
//===----------------------------------------------------------------------===//

#include "capture/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace capture {
#define GEN_PASS_DEF_CPUKERNELSTOLLVM
#include "capture/Conversion/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;

namespace {
struct CPUKernelsToLLVMPass
    : public capture::impl::CPUKernelsToLLVMBase<CPUKernelsToLLVMPass> {
  void runOnOperation() override;
};
} // namespace

void capture::populateCPUKernelsToLLVMPatterns(
    const LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  populateSCFToControlFlowConversionPatterns(patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  populateMathToLLVMConversionPatterns(converter, patterns);
  populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
  populateVectorToLLVMConversionPatterns(converter, patterns);
  populateFuncToLLVMConversionPatterns(converter, patterns);
}

/// Adds `capture_k_<name>(ptr bindings, i64 group, i64 groups)` for the
/// lowered kernel `kernel` (bare pointers, then the group id and count):
/// it loads the kernel's binding pointers from the array and calls it. The
/// kernel itself becomes internal, so that only entry points are exported.
static void addEntryPoint(LLVM::LLVMFuncOp kernel, OpBuilder &b) {
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                          {ptr, i64, i64});
  b.setInsertionPointAfter(kernel);
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, (kCPUEntryPrefix + kernel.getName()).str(), type);
  Block *body = entry.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  unsigned bindings = kernel.getNumArguments() - 2;
  SmallVector<Value> args;
  for (unsigned i = 0; i < bindings; ++i) {
    Value at =
        LLVM::GEPOp::create(b, loc, ptr, ptr, body->getArgument(0),
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    args.push_back(LLVM::LoadOp::create(b, loc, ptr, at));
  }
  args.push_back(body->getArgument(1));
  args.push_back(body->getArgument(2));
  LLVM::CallOp::create(b, loc, kernel, args);
  LLVM::ReturnOp::create(b, loc, ValueRange());
  kernel.setLinkage(LLVM::Linkage::Internal);
}

void CPUKernelsToLLVMPass::runOnOperation() {
  ModuleOp module = getOperation();
  auto host = SymbolTable(module).lookup<ModuleOp>(kCPUKernelsModule);
  if (!host)
    return;
  MLIRContext *ctx = &getContext();

  // Every kernel's arguments are bindings (static memrefs), then the group
  // id and count: the entry points rely on it.
  SmallVector<StringAttr> kernels;
  for (auto func : host.getOps<func::FuncOp>()) {
    FunctionType type = func.getFunctionType();
    auto isIndex = [](Type t) { return t.isIndex(); };
    bool bindings = llvm::all_of(
        type.getInputs().drop_back(std::min<size_t>(2, type.getNumInputs())),
        [](Type t) {
          auto memref = dyn_cast<MemRefType>(t);
          return memref && memref.hasStaticShape() &&
                 memref.getLayout().isIdentity() && !memref.getMemorySpace();
        });
    if (type.getNumInputs() < 2 || !bindings || type.getNumResults() != 0 ||
        !llvm::all_of(type.getInputs().take_back(2), isIndex)) {
      func.emitOpError() << "in " << kCPUKernelsModule
                         << " must take static identity-layout memrefs, then "
                            "the group id and count (index), and return "
                            "nothing (as ag-kernels-to-cpu makes them), got "
                         << type;
      return signalPassFailure();
    }
    kernels.push_back(func.getSymNameAttr());
  }

  // No libm: exp, log, tanh, erf and friends as polynomials (f32 and
  // vectors of f32); the rest of math is instructions on the host's ISA.
  RewritePatternSet math(ctx);
  populateMathPolynomialApproximationPatterns(math);
  if (failed(applyPatternsGreedily(host, std::move(math))))
    return signalPassFailure();

  LowerToLLVMOptions options(ctx);
  options.useBarePtrCallConv = true;
  LLVMTypeConverter converter(ctx, options);
  RewritePatternSet patterns(ctx);
  populateCPUKernelsToLLVMPatterns(converter, patterns);
  LLVMConversionTarget target(*ctx);
  target.addLegalOp<ModuleOp>();
  if (failed(applyFullConversion(host, target, std::move(patterns))))
    return signalPassFailure();

  SymbolTable symbols(host);
  OpBuilder b(ctx);
  for (StringAttr name : kernels)
    addEntryPoint(symbols.lookup<LLVM::LLVMFuncOp>(name), b);
}
