//===- Passes.h - Capture conversion passes ---------------------*- C++ -*-===//

#ifndef CAPTURE_CONVERSION_PASSES_H
#define CAPTURE_CONVERSION_PASSES_H

#include "capture/Pipelines/CompileOptions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;
class SPIRVTypeConverter;
} // namespace mlir

namespace capture {

#define GEN_PASS_DECL
#include "capture/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "capture/Conversion/Passes.h.inc"

/// Adds the patterns that lower Capture's kernels (gpu, arith, math, scf,
/// memref, func inside a gpu.module) to SPIR-V.
void populateKernelsToSPIRVPatterns(const mlir::SPIRVTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);

/// Adds the patterns that lower the host kernels of ag-kernels-to-cpu (scf,
/// cf, arith, math, memref, vector, func) to the LLVM dialect.
void populateCPUKernelsToLLVMPatterns(const mlir::LLVMTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);

/// Names of the module-level buffers the lowering creates.
inline constexpr llvm::StringLiteral kWeightsGlobal = "__ag_weights";
inline constexpr llvm::StringLiteral kConstantsGlobal = "__ag_constants";
/// On the (uninitialized) constants global: the initial bytes of its
/// non-splat constants (i8 elements from offset 0), and its splats as
/// [offset, bytes, 32-bit value] triples; the module writer stores both.
inline constexpr llvm::StringLiteral kConstantBytesAttr = "ag.constant_bytes";
inline constexpr llvm::StringLiteral kConstantFillsAttr = "ag.constant_fills";
/// Gradients and AdamW moments of every param pack; zero at load.
inline constexpr llvm::StringLiteral kOptimizerGlobal = "__ag_optimizer";
/// Attribute on a gpu.func that writes other arguments than its last: the
/// indices of the arguments it writes.
inline constexpr llvm::StringLiteral kKernelWritesAttr = "ag.writes";
/// Attributes on a lowered entry (func.func).
inline constexpr llvm::StringLiteral kEntryAttr = "ag.entry";
inline constexpr llvm::StringLiteral kScratchAttr = "ag.scratch";
/// The nested builtin.module that ag-kernels-to-cpu fills with the host
/// functions of the kernels (one func.func per workgroup).
inline constexpr llvm::StringLiteral kCPUKernelsModule = "__ag_cpu_kernels";
/// The prefix of the exported entry point of each host kernel
/// (ag-cpu-kernels-to-llvm): `capture_k_<kernel>`.
inline constexpr llvm::StringLiteral kCPUEntryPrefix = "capture_k_";
/// Module attribute: the #ag.target the kernels are shaped for.
inline constexpr llvm::StringLiteral kTargetAttr = "ag.target";
/// On a kernel's gpu.func: array<i64: before, after>, the most loop
/// iterations one invocation runs before and after ag-bound-kernel-loops.
inline constexpr llvm::StringLiteral kLoopIterationsAttr = "ag.loop_iterations";
/// On a kernel's gpu.func (i64): its subgroup shuffles pass values within
/// groups of this many consecutive lanes, so it runs right only on devices
/// whose subgroup size is a multiple of it; the module writer stores it
/// (Kernel.subgroup_multiple) for the loader to check.
inline constexpr llvm::StringLiteral kSubgroupMultipleAttr =
    "ag.subgroup_multiple";
/// On a matmul kernel's gpu.func whose tiles share loads: array<i64: rows,
/// cols>, the tiles of each group of ag.subgroup_multiple consecutive work
/// items (A shared when rows < 8, B when cols < 8).
inline constexpr llvm::StringLiteral kTileGroupAttr = "ag.tile_group";
/// Attribute on a gpu.func whose argument types are not its tensors' (vec4
/// views): the tensor shape of each argument, as DenseI64ArrayAttrs.
inline constexpr llvm::StringLiteral kBindingShapesAttr = "ag.binding_shapes";
/// Attribute on a gpu.launch_func: the dispatch's estimated work (i64,
/// multiply-add equivalents: its matmul's multiply-adds plus
/// kWorkPerBoundFloat per float it binds), which the module writer stores.
inline constexpr llvm::StringLiteral kWorkAttr = "ag.work";
/// The work a float read or written costs against one multiply-add: about
/// 8 on llvmpipe (AdamW moves 7 floats per parameter and takes ~60
/// multiply-adds' time); a rough figure, used only for advice.
inline constexpr int64_t kWorkPerBoundFloat = 8;
} // namespace capture

#endif // CAPTURE_CONVERSION_PASSES_H
