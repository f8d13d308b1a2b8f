//===- Passes.h - Capture transformation passes -----------------*- C++ -*-===//

#ifndef CAPTURE_TRANSFORMS_PASSES_H
#define CAPTURE_TRANSFORMS_PASSES_H

#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/Pipelines/CompileOptions.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace capture {

#define GEN_PASS_DECL
#include "capture/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "capture/Transforms/Passes.h.inc"

} // namespace capture

#endif // CAPTURE_TRANSFORMS_PASSES_H
