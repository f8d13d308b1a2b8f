//===- Capture.cpp - Callables that record once and replay ----------------===//
//
// A call looks its inputs' signature up in the callable's cache (most
// recently used first); a hit whose module is still loaded replays, and
// anything else traces the function once with a fresh Tracer over the
// Params, compiles it in-process and loads it over the Params' shared
// Weights buffer. Each miss says why in whyRecorded(). A failed trace or
// compile leaves the cache as it was.
//
//===----------------------------------------------------------------------===//

#include "capture/Tracer/Capture.h"

#include "ParamsState.h"
#include "TraceState.h"

#include <algorithm>
#include <cmath>
#include <list>
#include <set>

using namespace capture;
using capture::detail::ParamsState;
using capture::detail::WeightDecl;

namespace capture::detail {

/// One recording in a callable's cache.
struct CachedRecording {
  /// The inputs' signature ("name: f32 [2, 4], ...", sorted by name).
  std::string signature;
  /// The module's id in the Params.
  uint64_t module = 0;
};

/// A training step's optimizer state saved by free().
struct SavedOptimizer {
  /// Both moments.
  rt::AdamWMoments moments;
  /// The step counter t.
  uint64_t step = 0;
  /// The Params' version the moments belong to (a re-created weight
  /// changes the parameter pack: the state then starts over).
  uint64_t version = 0;
};

/// What a call's input is matched on: its name, dtype and shape.
struct InputKey {
  /// The input's name.
  std::string name;
  /// Its dtype.
  rt::DType dtype;
  /// Its shape.
  std::vector<int64_t> shape;

  /// Whether `in` has this name, dtype and shape.
  bool matches(const rt::TensorView &in) const {
    return name == in.name && dtype == in.dtype && shape.size() == in.rank &&
           std::equal(shape.begin(), shape.end(), in.shape);
  }
};

struct CapturedState {
  /// The function.
  Tracer::Fn fn;
  /// The parameters (their Params must be alive: ParamsState::alive).
  std::shared_ptr<ParamsState> params;
  /// The Params object, for tracing over it.
  Params *owner = nullptr;
  /// Options.
  CaptureOptions options;
  /// Where capture()/captureStep() was called.
  SourceLoc loc;
  /// A training step: its optimizer and clipping.
  bool train = false;
  /// The optimizer (train).
  AdamW adamw;
  /// The clipping (train).
  StepOptions step;
  /// The learning rate and clip limit of the next steps (train).
  double lr = 0;
  /// The learning rates of param groups 1.. of the next steps (train).
  std::vector<double> groupLrs;
  /// The clip limit of the next steps, when the step clips.
  std::optional<double> maxGradNorm;
  /// The signature a training step was fixed to by its first successful
  /// recording.
  std::optional<std::vector<std::string>> fixedSignature;
  /// The recordings, most recently used first.
  std::list<CachedRecording> cache;
  /// Signatures evicted by the maxRecordings bound.
  std::set<std::string> evicted;
  /// Whether free() emptied the cache since the last recording.
  bool freed = false;
  /// The optimizer state free() saved (train).
  std::optional<SavedOptimizer> saved;
  /// Why the last call traced.
  std::string why;
  /// The signature whose recording failed at the last call that recorded
  /// (cleared by a recording that succeeds): a call with it records again
  /// because of that failure, not because its signature is new.
  std::optional<std::string> failedSignature;
  /// The inputs (names, dtypes, shapes, in order) of the last call that
  /// ran, whose recording is the cache's front: a call with the same
  /// replays it without formatting a signature.
  std::vector<InputKey> lastCall;
  /// Counters.
  CaptureStats stats;

  ~CapturedState() {
    for (const CachedRecording &r : cache)
      (void)params->release(r.module);
  }

  /// The name of the callable in messages.
  const char *what() const { return train ? "captureStep" : "capture"; }
  /// The callable's entry.
  const char *entry() const { return train ? "train" : "forward"; }
  /// One call, from `loc`.
  rt::Result<rt::RunResult> call(const std::vector<rt::TensorView> &inputs,
                                 const rt::RunOptions &runOptions,
                                 const SourceLoc &loc);
  /// Traces, compiles and loads the recording of `specs`.
  rt::Result<uint64_t> record(const std::vector<Tracer::InputSpec> &specs);
  /// Restores the hyperparameters and any saved optimizer state into the
  /// freshly loaded training step, and checks what it trains.
  rt::Status setUpStep(rt::Module &module);
  /// Releases every recording (saving a training step's optimizer state).
  rt::Status free();
};

} // namespace capture::detail

using capture::detail::CachedRecording;
using capture::detail::CapturedState;
using capture::detail::SavedOptimizer;

/// The inputs as "name: f32 [2, 4]", sorted by name.
static std::vector<std::string>
signatureOf(const std::vector<rt::TensorView> &inputs) {
  std::vector<std::string> items;
  for (const rt::TensorView &t : inputs)
    items.push_back(std::string(t.name) + ": " + rt::dtypeName(t.dtype) + " " +
                    rt::formatShape(t.shapeVector()));
  std::sort(items.begin(), items.end());
  return items;
}

/// The items of `a` that `b` lacks, joined ("none" for none); all of
/// them, or "no inputs", with `all`.
static std::string join(const std::vector<std::string> &a,
                        const std::vector<std::string> *b = nullptr) {
  std::string out;
  for (const std::string &x : a)
    if (!b || std::find(b->begin(), b->end(), x) == b->end())
      out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? (b ? "none" : "no inputs") : out;
}

rt::Status CapturedState::setUpStep(rt::Module &module) {
  // A captured step trains every trainable weight of its Params, or those
  // of step.trains: a weight it should train and does not (the loss does
  // not reach it) is an error, and so is one it should not and does.
  rt::Result<const rt::EntryDesc *> e = module.findEntry("train");
  if (e.isError())
    return e.status();
  const rt::BufferRangeDesc &pack = e.value()->train->params;
  const std::optional<std::vector<std::string>> &trains = step.trains;
  std::string untrained, foreign;
  for (const rt::WeightDesc &w : module.desc().weights) {
    const WeightDecl *d = params->find(w.name);
    bool inPack =
        w.offset >= pack.offset && w.offset + w.size <= pack.offset + pack.size;
    bool listed = !trains || std::find(trains->begin(), trains->end(),
                                       w.name) != trains->end();
    if (d && d->trainable && listed && !inPack)
      untrained += (untrained.empty() ? "'" : ", '") + w.name + "'";
    if (inPack && !listed)
      foreign += (foreign.empty() ? "'" : ", '") + w.name + "'";
  }
  if (!untrained.empty())
    return rt::Status::error(
        "the loss does not depend on the trainable weight(s) " + untrained +
        (trains ? ": the step's options say it trains them"
                : ": a captured step trains every trainable weight of its "
                  "Params (declare the others with trainable = false)"));
  if (!foreign.empty())
    return rt::Status::error(
        "the step trains " + foreign +
        ", which its options do not list (StepOptions::trains): read "
        "another step's weights through stopGradient");
  if (lr != adamw.lr)
    CAPTURE_RT_RETURN_IF_ERROR(
        module.setLearningRate("train", static_cast<float>(lr)));
  for (size_t g = 0; g < groupLrs.size(); ++g)
    if (groupLrs[g] != step.paramGroups[g].adamw.lr)
      CAPTURE_RT_RETURN_IF_ERROR(module.setLearningRate(
          "train", g + 1, static_cast<float>(groupLrs[g])));
  if (maxGradNorm && maxGradNorm != step.maxGradNorm)
    CAPTURE_RT_RETURN_IF_ERROR(
        module.setMaxGradNorm("train", static_cast<float>(*maxGradNorm)));
  if (saved && saved->version == params->version) {
    CAPTURE_RT_RETURN_IF_ERROR(module.writeMoments("train", saved->moments));
    CAPTURE_RT_RETURN_IF_ERROR(module.setTrainStep("train", saved->step));
  }
  saved.reset();
  return rt::Status::ok();
}

rt::Result<uint64_t>
CapturedState::record(const std::vector<Tracer::InputSpec> &specs) {
  Tracer tracer(*owner);
  ++stats.recordings;
  rt::Status traced =
      train ? tracer.trainStep("train", specs, fn, adamw, step, loc)
            : tracer.forward("forward", specs, fn, loc);
  if (traced.isError())
    return traced;
  // The host device runs host code only: a step captured for it is
  // compiled for the cpu target unless the caller chose another target.
  CompileOptions compile = options.compile;
  if (compile.target == CompileOptions().target) {
    rt::Result<std::shared_ptr<rt::Device>> device = owner->device();
    if (device.isOk() && device.value()->info().type == rt::DeviceType::Host)
      compile.target = "cpu";
  }
  bool hit = false;
  rt::Result<std::vector<uint8_t>> bytes = tracer.compile(
      compile, options.cache ? *options.cache : CompileCache::fromEnvironment(),
      &hit);
  if (bytes.isError())
    return bytes.status();
  stats.cacheHits += hit;
  rt::Result<uint64_t> id = params->load(bytes.value());
  if (id.isError())
    return id.status();
  if (train)
    if (rt::Status s = setUpStep(*params->module(id.value())); s.isError()) {
      (void)params->release(id.value());
      return s;
    }
  return id;
}

rt::Result<rt::RunResult>
CapturedState::call(const std::vector<rt::TensorView> &inputs,
                    const rt::RunOptions &runOptions,
                    const SourceLoc &callLoc) {
  std::string where = std::string(what()) + ": ";
  if (!params->alive)
    return rt::Status::error(where + "its Params was destroyed; a captured "
                                     "function must not outlive its Params");
  if (TraceState *outer = params->active) {
    // Run now, it would be work outside the graph being traced.
    std::string kernel =
        std::string(what()) + " made at " + outer->sourceText(loc);
    outer->recordEager(kernel, callLoc);
    return rt::Status::error(
        where + "called inside a function traced over the same Params: "
                "recorded there as an eager launch, which the capture guard "
                "refuses; call it outside the traced function, or call the "
                "function it wraps");
  }
  bool same = !cache.empty() && lastCall.size() == inputs.size();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const rt::TensorView &in = inputs[i];
    for (size_t j = 0; j < i; ++j)
      if (inputs[j].name == in.name)
        return rt::Status::error(where + "input '" + std::string(in.name) +
                                 "' is given twice");
    std::optional<uint64_t> n = rt::elementCount(in.shape, in.rank);
    if (!n || in.bytes != *n * rt::dtypeSize(in.dtype))
      return rt::Status::error(where + "input '" + std::string(in.name) + "' " +
                               rt::formatType(in.shapeVector(), in.dtype) +
                               " needs " + std::to_string(n.value_or(0) * 4) +
                               " bytes of data, got " +
                               std::to_string(in.bytes));
    same = same && lastCall[i].matches(in);
  }
  if (same) {
    CAPTURE_RT_RETURN_IF_ERROR(params->sync());
    if (rt::Module *module = params->module(cache.front().module)) {
      why.clear();
      ++stats.replays;
      ++stats.calls;
      return module->runViews(entry(), inputs, {}, runOptions);
    }
  }
  lastCall.clear();
  std::vector<Tracer::InputSpec> specs;
  for (const rt::TensorView &in : inputs)
    specs.push_back(
        {std::string(in.name), in.shapeVector(),
         in.dtype == rt::DType::I32 ? ElemType::I32 : ElemType::F32});
  std::vector<std::string> items = signatureOf(inputs);
  std::string sig = join(items);
  if (train && fixedSignature && items != *fixedSignature)
    return rt::Status::error(
        where + "inputs " + sig + " differ from the recording's " +
        join(*fixedSignature) + " (given: " + join(items, &*fixedSignature) +
        "; recorded: " + join(*fixedSignature, &items) +
        "); a training step's shapes are fixed by its first call: pad the "
        "batch to the recorded shape (masking the padding out of the loss), "
        "or capture a step per shape ahead of time (buckets)");
  CAPTURE_RT_RETURN_IF_ERROR(params->sync());

  auto hit =
      std::find_if(cache.begin(), cache.end(), [&](const CachedRecording &r) {
        return r.signature == sig;
      });
  rt::Module *module = nullptr;
  if (hit != cache.end()) {
    module = params->module(hit->module);
    if (module) {
      cache.splice(cache.begin(), cache, hit);
      why.clear();
    } else {
      auto reason = params->dropped.find(hit->module);
      why = "the recording of " + sig + " was dropped: " +
            (reason != params->dropped.end() ? reason->second
                                             : std::string("unknown")) +
            (train ? ", so the optimizer state starts over" : "");
      if (reason != params->dropped.end())
        params->dropped.erase(reason);
      cache.erase(hit);
    }
  } else if (failedSignature == sig) {
    why = "the previous call's recording of inputs " + sig +
          " failed, so this call records again";
  } else if (stats.recordings == 0) {
    why = "first call, with inputs " + sig;
  } else if (evicted.count(sig)) {
    why = "inputs " + sig +
          " were recorded before and freed by the cache limit "
          "(maxRecordings = " +
          std::to_string(options.maxRecordings) + ")";
  } else if (freed) {
    why = "free() released the recordings; inputs " + sig;
  } else {
    std::string known;
    for (const CachedRecording &r : cache)
      known += (known.empty() ? "{" : "}, {") + r.signature;
    why = "new input signature " + sig +
          (known.empty() ? std::string() : "; recorded: " + known + "}");
  }

  if (!module) {
    // The bound holds before the new module is loaded.
    while (cache.size() >= options.maxRecordings) {
      CAPTURE_RT_RETURN_IF_ERROR(params->release(cache.back().module));
      evicted.insert(cache.back().signature);
      cache.pop_back();
      ++stats.evictions;
    }
    rt::Result<uint64_t> id = record(specs);
    if (id.isError()) {
      failedSignature = sig;
      return id.status().withContext(where + "recording failed (" + why + ")");
    }
    failedSignature.reset();
    cache.push_front({sig, id.value()});
    evicted.erase(sig);
    freed = false;
    if (train)
      fixedSignature = items;
    module = params->module(id.value());
  } else {
    ++stats.replays;
  }
  ++stats.calls;
  for (const rt::TensorView &in : inputs)
    lastCall.push_back({std::string(in.name), in.dtype, in.shapeVector()});
  return module->runViews(entry(), inputs, {}, runOptions);
}

rt::Status CapturedState::free() {
  lastCall.clear();
  for (auto it = cache.begin(); it != cache.end();) {
    rt::Module *module = params->module(it->module);
    if (train && module) {
      rt::Result<rt::AdamWMoments> m = module->readMoments("train");
      rt::Result<rt::TrainState> t = module->trainState("train");
      if (m.isError())
        return m.status().withContext("free");
      saved =
          SavedOptimizer{std::move(m).value(), t.value().step, params->version};
    }
    CAPTURE_RT_RETURN_IF_ERROR(params->release(it->module));
    it = cache.erase(it);
    freed = true;
  }
  return rt::Status::ok();
}

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

/// The state of a new callable over `params`.
static std::shared_ptr<CapturedState> makeState(Tracer::Fn fn, Params &params,
                                                CaptureOptions options,
                                                SourceLoc loc) {
  auto s = std::make_shared<CapturedState>();
  s->fn = std::move(fn);
  s->params = detail::ParamsAccess::of(params);
  s->owner = &params;
  s->options = std::move(options);
  s->options.maxRecordings = std::max<size_t>(1, s->options.maxRecordings);
  s->loc = loc;
  return s;
}

Captured capture::capture(Tracer::Fn fn, Params &params, CaptureOptions options,
                          SourceLoc loc) {
  return Captured(makeState(std::move(fn), params, std::move(options), loc));
}

CapturedStep capture::captureStep(Tracer::Fn fn, Params &params, AdamW adamw,
                                  StepOptions options,
                                  CaptureOptions captureOptions,
                                  SourceLoc loc) {
  auto s = makeState(std::move(fn), params, std::move(captureOptions), loc);
  s->train = true;
  s->adamw = adamw;
  s->step = options;
  s->lr = adamw.lr;
  for (const ParamGroup &group : options.paramGroups)
    s->groupLrs.push_back(group.adamw.lr);
  s->maxGradNorm = options.maxGradNorm;
  // One recording: the shapes are fixed.
  s->options.maxRecordings = 1;
  return CapturedStep(std::move(s));
}

/// The outputs of `r`.
static rt::Result<std::vector<rt::NamedTensor>>
outputsOf(rt::Result<rt::RunResult> r) {
  if (r.isError())
    return r.status();
  return std::move(r.value().outputs);
}

/// Views of `inputs` (valid while they are).
static std::vector<rt::TensorView>
viewsOf(const std::vector<rt::NamedTensor> &inputs) {
  std::vector<rt::TensorView> views;
  views.reserve(inputs.size());
  for (const rt::NamedTensor &t : inputs)
    views.push_back(rt::TensorView::of(t));
  return views;
}

rt::Result<rt::RunResult>
CapturedFunction::run(const std::vector<rt::NamedTensor> &inputs,
                      const rt::RunOptions &options, SourceLoc loc) {
  return state_->call(viewsOf(inputs), options, loc);
}
rt::Result<rt::RunResult>
CapturedFunction::run(const std::vector<rt::TensorView> &inputs,
                      const rt::RunOptions &options, SourceLoc loc) {
  return state_->call(inputs, options, loc);
}
rt::Result<const rt::Module *> CapturedFunction::module() const {
  rt::Module *m = state_->cache.empty()
                      ? nullptr
                      : state_->params->module(state_->cache.front().module);
  if (!m)
    return rt::Status::error(std::string(state_->what()) +
                             ": no recording is loaded (before the first "
                             "call, or after free())");
  return static_cast<const rt::Module *>(m);
}
bool CapturedFunction::tracing() const {
  return state_->params->active != nullptr;
}
const std::string &CapturedFunction::whyRecorded() const { return state_->why; }
CaptureStats CapturedFunction::stats() const {
  CaptureStats s = state_->stats;
  s.cached = state_->cache.size();
  return s;
}
rt::Status CapturedFunction::free() { return state_->free(); }

rt::Result<std::vector<rt::NamedTensor>>
Captured::operator()(const std::vector<rt::NamedTensor> &inputs,
                     SourceLoc loc) {
  return outputsOf(state_->call(viewsOf(inputs), rt::RunOptions(), loc));
}

rt::Result<std::vector<rt::NamedTensor>>
CapturedStep::operator()(const std::vector<rt::NamedTensor> &inputs,
                         SourceLoc loc) {
  return outputsOf(state_->call(viewsOf(inputs), rt::RunOptions(), loc));
}

/// The training step's loaded module, or null.
static rt::Module *loadedStep(CapturedState &s) {
  return s.cache.empty() ? nullptr : s.params->module(s.cache.front().module);
}

rt::Status CapturedStep::setLearningRate(double lr) {
  return setLearningRate(0, lr);
}

rt::Status CapturedStep::setLearningRate(size_t group, double lr) {
  if (!std::isfinite(lr) || lr < 0)
    return rt::Status::error("captureStep: setLearningRate expects a finite "
                             "learning rate >= 0, got " +
                             std::to_string(lr));
  if (group > state_->groupLrs.size())
    return rt::Status::error("captureStep: setLearningRate of param group " +
                             std::to_string(group) + ", but the step has " +
                             std::to_string(state_->groupLrs.size() + 1) +
                             " (StepOptions::paramGroups and group 0)");
  (group ? state_->groupLrs[group - 1] : state_->lr) = lr;
  if (rt::Module *m = loadedStep(*state_))
    return m->setLearningRate("train", group, static_cast<float>(lr));
  return rt::Status::ok();
}

rt::Status CapturedStep::setMaxGradNorm(double maxGradNorm) {
  if (!state_->step.maxGradNorm)
    return rt::Status::error(
        "captureStep: setMaxGradNorm on a step created without clipping; "
        "create it with StepOptions{.maxGradNorm = ...} to clip");
  if (!std::isfinite(maxGradNorm) || maxGradNorm <= 0)
    return rt::Status::error("captureStep: setMaxGradNorm expects a finite "
                             "limit > 0, got " +
                             std::to_string(maxGradNorm));
  state_->maxGradNorm = maxGradNorm;
  if (rt::Module *m = loadedStep(*state_))
    return m->setMaxGradNorm("train", static_cast<float>(maxGradNorm));
  return rt::Status::ok();
}

rt::Result<rt::TrainState> CapturedStep::trainState() const {
  if (rt::Module *m = loadedStep(*state_))
    return m->trainState("train");
  rt::TrainState t;
  t.step = state_->saved ? state_->saved->step : 0;
  t.adamw.lr = static_cast<float>(state_->lr);
  t.adamw.beta1 = static_cast<float>(state_->adamw.beta1);
  t.adamw.beta2 = static_cast<float>(state_->adamw.beta2);
  t.adamw.eps = static_cast<float>(state_->adamw.eps);
  t.adamw.weightDecay = static_cast<float>(state_->adamw.weightDecay);
  t.adamw.decoupled = state_->adamw.decoupledWeightDecay;
  if (state_->maxGradNorm)
    t.maxGradNorm = static_cast<float>(*state_->maxGradNorm);
  return t;
}

rt::Result<OptimizerState> CapturedStep::optimizerState() const {
  if (rt::Module *m = loadedStep(*state_)) {
    rt::Result<rt::AdamWMoments> moments = m->readMoments("train");
    if (moments.isError())
      return moments.status();
    rt::Result<rt::TrainState> t = m->trainState("train");
    if (t.isError())
      return t.status();
    return OptimizerState{std::move(moments).value(), t.value().step};
  }
  if (state_->saved && state_->saved->version == state_->params->version)
    return OptimizerState{state_->saved->moments, state_->saved->step};
  return rt::Status::error(
      "captureStep: no optimizer state yet: the step has not been called "
      "(or a weight was re-created since)");
}

rt::Status CapturedStep::takeOptimizerFrom(const CapturedStep &other) {
  if (state_ == other.state_)
    return rt::Status::ok();
  rt::Module *mine = loadedStep(*state_);
  rt::Module *theirs = loadedStep(*other.state_);
  if (mine && theirs && state_->params == other.state_->params)
    return mine->copyOptimizerState("train", *theirs, "train");
  rt::Result<OptimizerState> state = other.optimizerState();
  if (state.isError())
    return state.status();
  return restoreOptimizer(state.value());
}

rt::Status CapturedStep::restoreOptimizer(const OptimizerState &state) {
  if (rt::Module *m = loadedStep(*state_)) {
    CAPTURE_RT_RETURN_IF_ERROR(m->writeMoments("train", state.moments));
    return m->setTrainStep("train", state.step);
  }
  state_->saved =
      SavedOptimizer{state.moments, state.step, state_->params->version};
  return rt::Status::ok();
}
