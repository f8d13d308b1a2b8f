//===- Capmod.h - Write the .capmod module file -----------------*- C++ -*-===//

#ifndef CAPTURE_TARGET_CAPMOD_H
#define CAPTURE_TARGET_CAPMOD_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <vector>

namespace capture {

/// Serializes a fully lowered module (ag-lower-to-gpu, ag-kernels-to-spirv
/// and the spirv.module passes have run) into .capmod bytes: one SPIR-V blob
/// per kernel, the buffers, each entry's dispatch list with the barriers its
/// hazards need, the I/O layout, probes, weights and constants. The result
/// passes the runtime loader's checks, which run before anything is written.
mlir::LogicalResult writeCapmod(mlir::ModuleOp module,
                                std::vector<uint8_t> &bytes);

/// Prints a human-readable summary of .capmod bytes written by writeCapmod:
/// buffers, kernels and each entry's I/O slots and command list (dispatches
/// with the byte ranges they read and write, barriers).
void printCapmod(llvm::ArrayRef<uint8_t> bytes, llvm::raw_ostream &os);

/// Writes each kernel's SPIR-V binary to `<dir>/<kernel>.spv`.
mlir::LogicalResult dumpSpirv(mlir::ModuleOp module, llvm::StringRef dir);

} // namespace capture

#endif // CAPTURE_TARGET_CAPMOD_H
