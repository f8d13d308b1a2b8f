//===- TargetPresets.h - The #ag.target presets -----------------*- C++ -*-===//
//
// Private to lib/Conversion/AgToGPU: the device presets `ag-lower-to-gpu`'s
// `target` option names.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_LIB_CONVERSION_AGTOGPU_TARGETPRESETS_H
#define CAPTURE_LIB_CONVERSION_AGTOGPU_TARGETPRESETS_H

#include "capture/Dialect/Ag/IR/AgOps.h"

#include <string>

namespace capture {

/// The #ag.target of a preset name (`lavapipe`, `gpu`), or failure for an
/// unknown name.
mlir::FailureOr<ag::TargetAttr> targetPreset(mlir::MLIRContext *ctx,
                                             llvm::StringRef name);

/// " (did you mean 'X'?)" for a near miss of a preset name, else "".
std::string suggestTarget(llvm::StringRef name);

} // namespace capture

#endif // CAPTURE_LIB_CONVERSION_AGTOGPU_TARGETPRESETS_H
