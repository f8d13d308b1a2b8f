//===- ParamsState.h - What a Params holds ----------------------*- C++ -*-===//
//
// Private to lib/Tracer: the weight declarations of a capture::Params, and,
// once a captured function has run, the modules loaded over them. Every
// recording declares every weight, trainable ones first, so that all of
// them lay the Weights buffer out alike and share one (LoadOptions::
// shareWeightsWith): a training step's update is what a forward recording
// reads next, with no copy.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_LIB_TRACER_PARAMSSTATE_H
#define CAPTURE_LIB_TRACER_PARAMSSTATE_H

#include "capture/Tracer/Tracer.h"
#include "capture/rt/module.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace capture::detail {

struct TraceState;

/// One declared weight.
struct WeightDecl {
  /// Symbol name.
  std::string name;
  /// Dimensions.
  std::vector<int64_t> shape;
  /// Initial value.
  Init init;
  /// Whether a training step trains it.
  bool trainable = true;
  /// Where the user declared (or re-created) it.
  SourceLoc loc;
  /// Which declaration of the name this is (unique within the Params).
  uint64_t generation = 0;
};

/// A weight's value kept on the host while no module holds the weights.
struct HostValue {
  /// The declaration it belongs to (a re-created weight drops it).
  uint64_t generation = 0;
  /// The value.
  rt::HostTensor tensor;
};

/// A module loaded over the parameters, owned here so that a re-created
/// weight can drop every module of the old layout at once.
struct LoadedModule {
  /// The module (its Weights buffer is the shared one).
  std::unique_ptr<rt::Module> module;
};

struct ParamsState {
  /// Declarations, in declaration order.
  std::vector<WeightDecl> decls;
  /// The next generation number.
  uint64_t nextGeneration = 1;
  /// Bumped by every declaration and re-creation: a recording traced at
  /// another version has another set of weights.
  uint64_t version = 0;
  /// What the last re-creation was, for the reasons callables give:
  /// "weight 'x' was re-created at file:line:col".
  std::string lastChange;
  /// The first declaration error, "file:line:col: error: ...".
  std::string error;
  /// The trace recording over these parameters, if any.
  TraceState *active = nullptr;
  /// Whether the Params object still exists (callables may outlive it).
  bool alive = true;

  /// The device, once known.
  std::shared_ptr<rt::Device> device;
  /// Values kept on the host, by name.
  std::map<std::string, HostValue> host;
  /// Loaded modules by id; all share one Weights buffer and were traced at
  /// one version.
  std::map<uint64_t, LoadedModule> loaded;
  /// That version.
  uint64_t loadedVersion = 0;
  /// The generation of each weight the loaded modules hold.
  std::map<std::string, uint64_t> loadedGenerations;
  /// The next module id.
  uint64_t nextId = 1;
  /// Why each dropped module id was dropped (until its owner asks).
  std::map<uint64_t, std::string> dropped;

  /// The declaration of `name`, or null.
  const WeightDecl *find(const std::string &name) const;
  /// "'a', 'b'": the declared names ("none").
  std::string namesText() const;
  /// Declares `decl` (a new generation of it) in `slot`, replacing a
  /// declaration, or at the end; a handle of it, or an empty one after an
  /// error.
  Weight put(WeightDecl *slot, WeightDecl decl);
  /// Records `message` at `loc` as the first declaration error.
  void fail(const SourceLoc &loc, const std::string &message);
  /// The device, created on first use.
  rt::Result<std::shared_ptr<rt::Device>> getDevice();
  /// When loaded modules were traced at an older version, saves the
  /// current values of the weights that still exist to the host and drops
  /// those modules (their ids land in `dropped` with lastChange).
  rt::Status sync();
  /// Loads `bytes` over the shared Weights buffer (the first module gets
  /// the host values, or keeps its initializers); returns its id.
  rt::Result<uint64_t> load(const std::vector<uint8_t> &bytes);
  /// The loaded module `id`, or null when it was dropped.
  rt::Module *module(uint64_t id);
  /// Releases module `id`; the last one saves the values to the host first.
  rt::Status release(uint64_t id);
  /// Saves every weight's value from a loaded module to the host.
  rt::Status save();
};

/// The state behind a Params, for the callables made over it.
struct ParamsAccess {
  /// `params`' state.
  static std::shared_ptr<ParamsState> of(Params &params) {
    return params.state_;
  }
};

} // namespace capture::detail

#endif // CAPTURE_LIB_TRACER_PARAMSSTATE_H
