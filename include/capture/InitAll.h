//===- InitAll.h - Register Capture's dialects and passes -------*- C++ -*-===//

#ifndef CAPTURE_INITALL_H
#define CAPTURE_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace capture {

/// Adds the ag dialect (and what its passes produce) to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every Capture pass and pipeline with the global pass registry.
void registerAllPasses();

} // namespace capture

#endif // CAPTURE_INITALL_H
