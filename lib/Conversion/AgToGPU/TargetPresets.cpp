//===- TargetPresets.cpp - The #ag.target presets of ag-lower-to-gpu ------===//

#include "TargetPresets.h"

using namespace mlir;
using namespace capture;

/// The #ag.target of a preset name, or failure for an unknown name.
FailureOr<ag::TargetAttr> capture::targetPreset(MLIRContext *ctx,
                                               StringRef name) {
  // lavapipe: llvmpipe's subgroups are its 8-lane SIMD width on AVX2, it
  // allows 2^27 texels per texel buffer, and it ends an invocation's loops
  // after 65535 iterations (gallivm's LP_MAX_TGSI_LOOP_ITERATIONS).
  if (name == "lavapipe")
    return ag::TargetAttr::get(ctx, ag::ReadPath::texel, 8, 134217728, 65535);
  // gpu: storage buffers are fast there; 32 is the smallest subgroup of
  // the GPUs this preset is for (NVIDIA, and AMD in wave32).
  if (name == "gpu")
    return ag::TargetAttr::get(ctx, ag::ReadPath::ssbo, 32, 65536, 0);
  // cpu: the host's own code (ag-kernels-to-cpu), one invocation after
  // another within a workgroup, so a subgroup is one invocation: subgroup
  // reductions are the value itself and no shuffle is emitted.
  if (name == "cpu")
    return ag::TargetAttr::get(ctx, ag::ReadPath::ssbo, 1, 65536, 0);
  return failure();
}

/// " (did you mean 'X'?)" for a near miss of a preset name, else "".
std::string capture::suggestTarget(StringRef name) {
  return ag::suggestName(name, {"lavapipe", "gpu", "cpu"});
}
