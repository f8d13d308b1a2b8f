//===- Capture.h - capture(fn) and captureStep(fn) --------------*- C++ -*-===//
//
// Callables that trace a C++ function over a Params once, compile it
// in-process, and replay it on the device afterwards: the C++ form of
// ggmlR's ag_capture(fn) and ag_capture_step(fn, optimizer, max_grad_norm).
//
//   capture::Params params;
//   capture::Linear fc(params, "fc", 4, 2, /*seed=*/1);
//   auto predict = capture::capture(
//       [&](capture::Tracer::Inputs &in) -> capture::Tracer::Outputs {
//         return {{"y", capture::tanh(fc(in.at("x")))}};
//       },
//       params);
//   auto y = predict({{"x", rt::HostTensor::f32({8, 4}, data)}});
//
// capture() records once per input signature (the names, dtypes and shapes
// of the inputs) and keeps a bounded number of recordings, least recently
// used first out. captureStep() records a training step whose shapes are
// fixed by its first call. Every recording over one Params shares its
// Weights buffer on the device, so a forward callable reads what the
// training step trained, with no copy. whyRecorded() says why the last call
// traced the function again (or that it replayed).
//
// A callable holds device memory until free() or its last copy goes; the
// weights' values survive both (Params keeps them on the host while no
// recording holds them), and a freed training step keeps its optimizer
// state. A callable must not outlive its Params: a call after the Params
// is gone is an error, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_TRACER_CAPTURE_H
#define CAPTURE_TRACER_CAPTURE_H

#include "capture/Tracer/Layers.h"
#include "capture/rt/module.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace capture {

namespace detail {
struct CapturedState;
} // namespace detail

/// Options of capture() and captureStep().
struct CaptureOptions {
  /// capture(): recordings kept at once (>= 1), one per input signature;
  /// a new signature beyond this frees the least recently used one.
  size_t maxRecordings = 8;
  /// How recordings are compiled.
  CompileOptions compile;
  /// Where compiled recordings are kept between processes; unset: the
  /// environment's, read at each recording (CAPTURE_CACHE,
  /// CAPTURE_CACHE_DIR; see CompileCache). CompileCache() compiles every
  /// recording.
  std::optional<CompileCache> cache;
};

/// What a captured callable did so far.
struct CaptureStats {
  /// Calls that reached the device (a refused training step included).
  uint64_t calls = 0;
  /// Times the function was traced (exactly one call of it each).
  uint64_t recordings = 0;
  /// Calls that replayed a recording without tracing.
  uint64_t replays = 0;
  /// Recordings freed by the maxRecordings bound.
  uint64_t evictions = 0;
  /// Recordings whose module came from the compile cache, not compiled.
  uint64_t cacheHits = 0;
  /// Recordings held now.
  size_t cached = 0;
};

/// What the callables of capture() and captureStep() share. Copies share
/// recordings.
class CapturedFunction {
public:
  /// As the call operator, with the runtime's run options: eager (one
  /// submission per kernel, the baseline a replay is measured against),
  /// profile (host stages and device times) and probes.
  rt::Result<rt::RunResult> run(const std::vector<rt::NamedTensor> &inputs,
                                const rt::RunOptions &options,
                                SourceLoc loc = SourceLoc::current());
  /// As run(), reading the inputs where the caller keeps them (no copy but
  /// the one into the upload's staging).
  rt::Result<rt::RunResult> run(const std::vector<rt::TensorView> &inputs,
                                const rt::RunOptions &options,
                                SourceLoc loc = SourceLoc::current());
  /// The loaded module of the most recently used recording: its
  /// description (rt::moduleCensus, rt::formatEntryGraph) and counters. An
  /// error before the first call and after free(). Valid until the next
  /// call records or frees it.
  rt::Result<const rt::Module *> module() const;
  /// Whether a call now would be inside a function being traced over the
  /// same Params (recorded there as an eager launch, at the call's
  /// location): a binding locates its caller only then.
  bool tracing() const;
  /// Why the last call traced the function ("" when it replayed).
  const std::string &whyRecorded() const;
  /// Counters.
  CaptureStats stats() const;
  /// Releases every recording's device memory; the next call records
  /// again. The weights' values are kept on the host, and a training
  /// step's optimizer state (both moments and the step counter), from which
  /// the next call resumes.
  rt::Status free();

protected:
  explicit CapturedFunction(std::shared_ptr<detail::CapturedState> state)
      : state_(std::move(state)) {}
  /// Shared by copies.
  std::shared_ptr<detail::CapturedState> state_;
};

/// A forward computation captured by capture().
class Captured : public CapturedFunction {
public:
  /// Runs the function on named host arrays: replays the recording of
  /// their signature, recording it first when there is none. Every input
  /// the function reads must be given, each once. Called inside a function
  /// traced over the same Params, it is an eager launch: recorded there at
  /// `loc` (the guard then refuses that trace, naming the line), not run.
  rt::Result<std::vector<rt::NamedTensor>>
  operator()(const std::vector<rt::NamedTensor> &inputs,
             SourceLoc loc = SourceLoc::current());

private:
  friend Captured capture(Tracer::Fn, Params &, CaptureOptions, SourceLoc);
  using CapturedFunction::CapturedFunction;
};

/// A training step's optimizer state: what, with the weights
/// (Params::values), resumes it bit for bit.
struct OptimizerState {
  /// Both AdamW moments, flat, in the step's parameter order.
  rt::AdamWMoments moments;
  /// The step counter t (updates applied so far).
  uint64_t step = 0;
};

/// A training step captured by captureStep().
class CapturedStep : public CapturedFunction {
public:
  /// One step on named host arrays (loss first among the outputs, and
  /// grad_norm): the forward and backward pass, the clipping and the AdamW
  /// update, in one submission. The first call fixes the inputs' shapes; a
  /// call with others is an error naming both. A non-finite gradient norm
  /// refuses the update (an error; weights, moments and the step counter
  /// unchanged). Inside a traced function it is an eager launch, as for
  /// Captured.
  rt::Result<std::vector<rt::NamedTensor>>
  operator()(const std::vector<rt::NamedTensor> &inputs,
             SourceLoc loc = SourceLoc::current());
  /// The learning rate of the next steps (finite, >= 0): never records. Of
  /// param group 0, when the step has several.
  rt::Status setLearningRate(double lr);
  /// The learning rate of param group `group` (0: the first) of the next
  /// steps, as setLearningRate.
  rt::Status setLearningRate(size_t group, double lr);
  /// The clip limit of the next steps (finite, > 0; the step must have been
  /// created with StepOptions::maxGradNorm): never records.
  rt::Status setMaxGradNorm(double maxGradNorm);
  /// The step counter and hyperparameters of the next step.
  rt::Result<rt::TrainState> trainState() const;
  /// The optimizer state: read from the device while the recording is
  /// loaded, else what free() or restoreOptimizer() kept; an error before
  /// the first call.
  rt::Result<OptimizerState> optimizerState() const;
  /// Restores a saved optimizer state (with the weights, Params::setValues,
  /// the next steps continue bit for bit). Applied at once when the
  /// recording is loaded (the moments checked first: a wrong size changes
  /// nothing), else kept for the next recording, whose first call then
  /// fails on a wrong size.
  rt::Status restoreOptimizer(const OptimizerState &state);
  /// Continues the optimizer of `other`, another step over the same Params
  /// and weights (a recording at another batch size): its moments and step
  /// counter, copied on the device when both recordings are loaded (one
  /// submission, no host transit), else through optimizerState and
  /// restoreOptimizer. The hyperparameters stay this step's.
  rt::Status takeOptimizerFrom(const CapturedStep &other);

private:
  friend CapturedStep captureStep(Tracer::Fn, Params &, AdamW, StepOptions,
                                  CaptureOptions, SourceLoc);
  using CapturedFunction::CapturedFunction;
};

/// Captures the forward computation `fn` over `params`: a callable that
/// records it once per input signature and replays it afterwards.
Captured capture(Tracer::Fn fn, Params &params, CaptureOptions options = {},
                 SourceLoc loc = SourceLoc::current());

/// Captures a training step: `fn`'s first output is the loss (a scalar);
/// the compiler adds the backward pass, the clipping to
/// options.maxGradNorm and the AdamW update. It trains every trainable
/// weight of `params`.
CapturedStep captureStep(Tracer::Fn fn, Params &params, AdamW adamw,
                         StepOptions options = {},
                         CaptureOptions captureOptions = {},
                         SourceLoc loc = SourceLoc::current());

} // namespace capture

#endif // CAPTURE_TRACER_CAPTURE_H
