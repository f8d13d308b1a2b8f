//===- Passes.td - Capture conversion passes ----------------*- tablegen -*-===//

#ifndef CAPTURE_CONVERSION_PASSES_TD
#define CAPTURE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerToGPU : Pass<"ag-lower-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Plan buffers and lower packed ag entries to gpu kernels and "
                "a replay schedule";
  let description = [{
    Every packed `ag.forward` becomes a `func.func` (the replay schedule)
    taking the entry's input and output byte buffers as memrefs. Each tensor
    gets a byte range of a buffer: inputs in the input buffer, outputs in
    the output buffer, weights in `@__ag_weights`, constants in
    `@__ag_constants` (with their bytes), intermediates in the entry's
    scratch global. Each compute op becomes a `gpu.launch_func` of a kernel
    whose arguments are `memref.view`s of those ranges, operands first and
    the written result last. Placement is decided for the whole entry at
    once, which is why this is a pass and not a set of rewrite patterns.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "Byte alignment of every buffer range a kernel binds">,
    Option<"workgroupSize", "workgroup-size", "unsigned", /*default=*/"64",
           "Invocations per workgroup of every kernel">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::spirv::SPIRVDialect",
  ];
}

def KernelsToSPIRV : Pass<"ag-kernels-to-spirv", "::mlir::ModuleOp"> {
  let summary = "Convert every gpu.module kernel into a spirv.module";
  let description = [{
    Like upstream's `convert-gpu-to-spirv` (each `gpu.module` is cloned into
    a `spirv.module` beside it, memref memory spaces mapped to Vulkan
    storage classes), plus the math dialect, which the kernels use for exp,
    log, sqrt and friends.
  }];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

#endif // CAPTURE_CONVERSION_PASSES_TD
