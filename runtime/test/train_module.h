//===- train_module.h - A training module, no compiler ----------*- C++ -*-===//
//
// The training test module (makeTrainModule) trains two weights, w1 [2, 3]
// at byte 0 and w2 [4] at byte 32 of the Weights buffer, packed with zero
// padding into one flat parameter range of 16 floats (bytes [0, 64)), on
// loss = 0.5 * sum((params - x)^2), whose gradient is params - x. A frozen
// weight `bias` [4] lies outside that range. Kernels (kernels/*.spvasm,
// assembled at build time): "sub" (binary_op with OpFSub), "norm_clip" and
// "adamw".
//
//   entry "train" (Train): inputs x [16]; adamw [7] and, when clipping,
//   max_grad_norm [] (both runtime-filled); outputs loss [], grad_norm [],
//   residual [16] (= params - x before the update):
//       grads = params - x            residual = params - x
//       barrier
//       norm_clip(grads, max_norm, loss, grad_norm)
//       barrier
//       adamw(grads, grad_norm, adamw, params, m, v)
//   entry "eval" (Forward): input x [16]; output residual [16] = params - x.
//
// Without clipping, norm_clip reads a +inf limit from the Constants buffer,
// which scales by exactly 1.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_TRAIN_MODULE_H
#define CAPTURE_RT_TRAIN_MODULE_H

#include "capture/rt/module_desc.h"

#include <optional>
#include <vector>

namespace capture::rt::test {

/// Buffer indices of the training test module.
enum TrainBuffer : uint32_t {
  kTrainInput = 0,     ///< x at 0, adamw at 256, max_grad_norm at 512
  kTrainOutput = 1,    ///< loss at 0, grad_norm at 256, residual at 512
  kTrainWeights = 2,   ///< w1 at 0, w2 at 32 (params [0, 64)), bias at 256
  kTrainOptimizer = 3, ///< grads at 0, m at 256, v at 512
  kTrainConstants = 4, ///< +inf, the limit of a step that does not clip
  kEvalOutput = 5,     ///< eval's residual at 0
  kEvalInput = 6,      ///< eval's x at 0
};

/// Floats in the flat parameter range.
constexpr size_t kTrainParams = 16;

/// The compiled-in clip limit of makeTrainModule(true).
constexpr float kTrainMaxGradNorm = 1.0f;

/// The compiled-in AdamW hyperparameters.
AdamWDesc trainAdamW();

/// The module described above; valid, so each test breaks one thing.
ModuleDesc makeTrainModule(bool clip);

/// Initial parameters, flat (padding included): w1, 0, 0, w2, 0 x 4.
std::vector<float> trainInitialParams();
/// Initial w1, w2 and bias, as their weights hold them.
std::vector<float> initialW1();
std::vector<float> initialW2();
std::vector<float> initialBias();
/// The default input x [16] (zero where the parameters are padding).
std::vector<float> trainInputX();
/// A second input, for steps that differ.
std::vector<float> trainInputX2();

/// Flat parameters and moments, as floats.
struct AdamWState {
  /// Parameters.
  std::vector<float> p;
  /// First moments.
  std::vector<float> m;
  /// Second moments.
  std::vector<float> v;
};

/// What one step computes, in double precision, from float state.
struct StepReference {
  /// Parameters after the update.
  std::vector<double> p;
  /// First moments after the update.
  std::vector<double> m;
  /// Second moments after the update.
  std::vector<double> v;
  /// 0.5 * sum((p - x)^2) before the update.
  double loss = 0;
  /// sqrt(sum((p - x)^2)) before the update (pre-clip).
  double gradNorm = 0;
};

/// torch.optim.AdamW's step number `stepsDone + 1` from `state`, after
/// torch.nn.utils.clip_grad_norm_(max_norm = maxGradNorm) when given.
StepReference referenceStep(const AdamWState &state,
                            const std::vector<float> &x, const AdamWDesc &a,
                            std::optional<float> maxGradNorm,
                            uint64_t stepsDone);

} // namespace capture::rt::test

#endif // CAPTURE_RT_TRAIN_MODULE_H
