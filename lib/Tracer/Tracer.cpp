//===- Tracer.cpp - Recording entries from C++ functions ------------------===//

#include "ParamsState.h"
#include "TraceState.h"

#include "capture/Compiler/Compiler.h"
#include "capture/Dialect/Ag/IR/AgDialect.h"
#include "capture/Dialect/Ag/IR/AgInitializer.h"
#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/InitAll.h"
#include "capture/Transforms/Passes.h"

#include "mlir/InitAllDialects.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <exception>

using namespace mlir;
using namespace capture;
using namespace capture::ag;
using capture::detail::TracedValue;
using capture::detail::TraceState;

/// "file:line:col" of a location the tracer made (or MLIR's own text).
static std::string locationText(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    // Column 0: a frontend that knows lines only (Python).
    std::string text =
        file.getFilename().str() + ":" + std::to_string(file.getLine());
    if (file.getColumn() != 0)
      text += ":" + std::to_string(file.getColumn());
    return text;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

/// Collects the errors (with their notes) MLIR emits while it lives, each
/// as "file:line:col: error: message".
namespace {
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          if (diag.getSeverity() != DiagnosticSeverity::Error)
            return success();
          std::string text =
              locationText(diag.getLocation()) + ": error: " + diag.str();
          for (Diagnostic &note : diag.getNotes())
            text += "\n" + locationText(note.getLocation()) +
                    ": note: " + note.str();
          messages.push_back(std::move(text));
          return success();
        }) {}
  /// Every error so far, one per line.
  std::string text() const { return llvm::join(messages, "\n"); }
  /// The errors.
  std::vector<std::string> messages;

private:
  ScopedDiagnosticHandler handler;
};
} // namespace

/// The first collected error without its location (the caller adds the
/// user's), or `fallback`.
static std::string firstMessage(const DiagnosticCollector &errors,
                                const std::string &fallback) {
  if (errors.messages.empty())
    return fallback;
  const std::string &m = errors.messages.front();
  size_t at = m.find("error: ");
  return at == std::string::npos ? m : m.substr(at + 7);
}

//===----------------------------------------------------------------------===//
// TraceState
//===----------------------------------------------------------------------===//

TraceState::TraceState(std::shared_ptr<ParamsState> params)
    : builder(&context), params(std::move(params)) {
  context.disableMultithreading();
  // A user's error names their lines (each op's location), not our IR: no
  // "see current operation" note with a whole entry in generic form.
  context.printOpOnDiagnostic(false);
  // What the pipeline produces too: Tracer::compile runs it here.
  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  capture::registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadDialect<AgDialect>();
  module = ModuleOp::create(UnknownLoc::get(&context));
  builder.setInsertionPointToEnd(module->getBody());
}

TraceState *TraceState::of(const At &at) {
  if (at.weight)
    return at.weight->params_ ? at.weight->params_->active : nullptr;
  return at.tensor.valid() ? at.tensor.state_ : nullptr;
}

Location TraceState::locationOf(const SourceLoc &loc) {
  return FileLineColLoc::get(&context, loc.file_name(), loc.line(),
                             loc.column());
}

std::string TraceState::sourceText(const SourceLoc &loc) {
  return ::locationText(locationOf(loc));
}

void TraceState::recordEager(const std::string &kernel, const SourceLoc &loc) {
  if (!failed())
    EagerOp::create(builder, locationOf(loc), TypeRange(), kernel,
                    ValueRange());
}

void TraceState::fail(const SourceLoc &loc, const std::string &message) {
  std::string text = locationText(locationOf(loc)) + ": error: " + message;
  std::string &first = recording ? entryError : moduleError;
  if (first.empty())
    first = std::move(text);
}

bool TraceState::checkShape(const SourceLoc &loc, const std::string &what,
                            llvm::ArrayRef<int64_t> shape) {
  for (int64_t d : shape)
    if (d < 0) {
      fail(loc, what + ": dimension " + std::to_string(d) +
                    " in its shape; expected sizes >= 0");
      return false;
    }
  return true;
}

RankedTensorType TraceState::f32(llvm::ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, builder.getF32Type());
}

const TracedValue *TraceState::lookup(const Tensor &t, const SourceLoc &loc,
                                      const char *op) {
  if (t.expired()) {
    fail(loc, std::string(op) + ": an operand is a tensor of a trace that has "
                                "finished (kept from an earlier call); "
                                "compute it inside this function");
    return nullptr;
  }
  if (!t.valid()) {
    fail(loc, std::string(op) + ": an operand is an empty Tensor (the "
                                "result of a failed op, or never assigned)");
    return nullptr;
  }
  if (t.state_ != this) {
    fail(loc, std::string(op) + ": an operand belongs to another Tracer");
    return nullptr;
  }
  if (t.id_ < entryFirst) {
    fail(loc, std::string(op) +
                  ": an operand is a tensor of an entry traced before this "
                  "one; each entry is its own trace (pass it as an input, or "
                  "compute it again here)");
    return nullptr;
  }
  return &values[t.id_];
}

const TracedValue *TraceState::operand(const At &at, const char *op) {
  if (!at.weight)
    return lookup(at.tensor, at.loc, op);
  const Weight &w = *at.weight;
  if (w.params_ != params.get()) {
    fail(at.loc, std::string(op) + ": weight '" + w.name_ +
                     "' belongs to another Params (or Tracer)");
    return nullptr;
  }
  const WeightDecl *decl = params->find(w.name_);
  if (!decl || decl->generation != w.generation_) {
    fail(at.loc, std::string(op) + ": weight '" + w.name_ +
                     "': this handle is from before the weight was "
                     "re-created" +
                     (decl ? " (at " + locationText(locationOf(decl->loc)) + ")"
                           : std::string()) +
                     "; use the handle Params::recreate returned");
    return nullptr;
  }
  if (auto done = assigned.find(w.name_); done != assigned.end()) {
    fail(at.loc, std::string(op) + ": weight '" + w.name_ +
                     "' is read after it was assigned (at " +
                     sourceText(done->second) +
                     "); an entry assigns a weight after every read of it");
    return nullptr;
  }
  auto it = reads.find(w.name_);
  if (it != reads.end())
    return &values[it->second];
  auto type = f32(w.shape_);
  Operation *read =
      ReadWeightOp::create(builder, locationOf(at.loc), type,
                           FlatSymbolRefAttr::get(&context, w.name_));
  Tensor t = finish(read, at.loc);
  if (!t.valid())
    return nullptr;
  reads[w.name_] = t.id_;
  return &values[t.id_];
}

void TraceState::assign(const Weight &target, const At &value) {
  // A check that reads nothing: the weight handle is valid (the value is
  // not read through the handle, so operand() does not apply).
  const WeightDecl *decl =
      target.params_ == params.get() ? params->find(target.name_) : nullptr;
  if (!decl || decl->generation != target.generation_) {
    fail(value.loc,
         "assign: " +
             (target.valid() ? "weight '" + target.name_ + "' " +
                                   (decl ? "is an old handle (the weight was "
                                           "re-created)"
                                         : "belongs to another Params")
                             : std::string("the target is an empty Weight")) +
             "; expected a handle of a weight of this entry's Params");
    return;
  }
  if (auto done = assigned.find(target.name_); done != assigned.end()) {
    fail(value.loc, "assign: weight '" + target.name_ +
                        "' is assigned twice in one entry (first at " +
                        sourceText(done->second) + ")");
    return;
  }
  const TracedValue *v = operand(value, "assign");
  if (!v)
    return;
  if (v->shape != target.shape_ || v->type != ElemType::F32) {
    fail(value.loc, "assign: weight '" + target.name_ + "' is f32 " +
                        formatShape(target.shape_) + ", but the value is " +
                        (v->type == ElemType::F32 ? "f32 " : "i32 ") +
                        formatShape(v->shape));
    return;
  }
  Operation *op = AssignWeightOp::create(
      builder, locationOf(value.loc),
      FlatSymbolRefAttr::get(&context, target.name_), v->value);
  finish(op, value.loc);
  if (!failed())
    assigned[target.name_] = value.loc;
}

Tensor TraceState::finish(Operation *op, const SourceLoc &loc) {
  {
    DiagnosticCollector errors(&context);
    if (mlir::failed(verify(op, /*verifyRecursively=*/false))) {
      op->erase();
      fail(loc, firstMessage(errors, "invalid op"));
      return {};
    }
  }
  if (op->getNumResults() != 1)
    return {};
  TracedValue v;
  v.value = op->getResult(0);
  auto type = cast<RankedTensorType>(v.value.getType());
  v.shape.assign(type.getShape().begin(), type.getShape().end());
  v.type = type.getElementType().isF32() ? ElemType::F32 : ElemType::I32;
  values.push_back(std::move(v));
  return tensor(static_cast<int32_t>(values.size() - 1));
}

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

const std::vector<int64_t> &Tensor::shape() const {
  static const std::vector<int64_t> none;
  return valid() ? state_->values[id_].shape : none;
}

ElemType Tensor::type() const {
  return valid() ? state_->values[id_].type : ElemType::F32;
}

float Tensor::item(SourceLoc loc) const {
  (void)toVector(loc);
  return 0.0f;
}

std::vector<float> Tensor::toVector(SourceLoc loc) const {
  // Zeros of the element count whatever happens (an invalid tensor is a
  // scalar): `y.toVector()[0]` must never read past the end.
  size_t n = 1;
  for (int64_t d : shape())
    n *= static_cast<size_t>(d);
  std::vector<float> zeros(n, 0.0f);
  if (!valid() || state_->failed())
    return zeros;
  TraceState &s = *state_;
  if (const TracedValue *v = s.lookup(*this, loc, "read-back"))
    DownloadOp::create(s.builder, s.locationOf(loc), v->value);
  return zeros;
}

//===----------------------------------------------------------------------===//
// Tracer
//===----------------------------------------------------------------------===//

const Tensor &Tracer::Inputs::at(const std::string &name) const {
  auto it = tensors_.find(name);
  if (it != tensors_.end())
    return it->second;
  std::string known;
  for (const auto &[n, t] : tensors_)
    known += (known.empty() ? "'" : ", '") + n + "'";
  throw std::out_of_range("no input '" + name + "' (the inputs: " +
                          (known.empty() ? "none" : known) + ")");
}

Tracer::Tracer()
    : ownParams_(std::make_unique<Params>()), params_(ownParams_.get()),
      state_(std::make_unique<TraceState>(params_->state_)) {}

Tracer::Tracer(Params &params)
    : params_(&params), state_(std::make_unique<TraceState>(params.state_)) {
  state_->declareWeights();
}

Tracer::~Tracer() = default;

/// The ag initializer attribute of `init`, or null after an error at `at`.
static InitAttr initAttr(Location at, const Init &init) {
  return InitAttr::getChecked([&] { return emitError(at); }, at.getContext(),
                              fromRtInitKind(init.kind), APFloat(init.a),
                              APFloat(init.b), init.fanIn, init.seed);
}

void TraceState::declareWeights() {
  for (bool trainable : {true, false})
    for (const WeightDecl &d : params->decls) {
      if (d.trainable != trainable)
        continue;
      auto it = declared.find(d.name);
      if (it != declared.end()) {
        if (it->second != d.generation && moduleError.empty())
          moduleError = locationText(locationOf(d.loc)) + ": error: weight '" +
                        d.name +
                        "' was re-created after this Tracer declared it; "
                        "trace with a new Tracer";
        continue;
      }
      declared[d.name] = d.generation;
      OpBuilder b(&context);
      b.setInsertionPointToEnd(module->getBody());
      Location at = locationOf(d.loc);
      DiagnosticCollector errors(&context);
      InitAttr attr = initAttr(at, d.init);
      WeightOp op;
      if (attr)
        op = WeightOp::create(b, at, d.name, d.trainable, f32(d.shape),
                              ElementsAttr(), attr);
      // A bad initializer or name is named at the user's line.
      if (!op || mlir::failed(verify(op))) {
        if (op)
          op->erase();
        if (moduleError.empty())
          moduleError = locationText(at) + ": error: weight '" + d.name +
                        "': " + firstMessage(errors, "invalid weight");
      }
    }
}

std::string TraceState::moduleFailure() const {
  return moduleError.empty() ? params->error : moduleError;
}

Weight Tracer::weight(const std::string &name, std::vector<int64_t> shape,
                      Init init, bool trainable, SourceLoc loc) {
  Weight w = params_->weight(name, std::move(shape), init, trainable, loc);
  state_->declareWeights();
  return w;
}

Tensor Tracer::fromHost(std::vector<int64_t> shape,
                        const std::vector<float> &data, bool constant,
                        SourceLoc loc) {
  TraceState &s = *state_;
  if (!s.recording) {
    s.fail(loc, "fromHost called outside a traced function");
    return {};
  }
  if (s.failed())
    return {};
  auto type = s.f32(shape);
  ElementsAttr value;
  if (static_cast<int64_t>(data.size()) == type.getNumElements())
    value = DenseElementsAttr::get(type, llvm::ArrayRef<float>(data));
  Operation *op =
      UploadOp::create(s.builder, s.locationOf(loc), type, constant, value);
  return s.finish(op, loc);
}

namespace {
/// What differs between the two kinds of entry.
struct EntryKind {
  /// Creates the (empty) entry op with `type`.
  std::function<Operation *(OpBuilder &, Location, FunctionType)> create;
  /// "forward" or "training step".
  const char *what;
};
} // namespace

/// Records one entry: builds its op, calls `fn` on its block arguments,
/// returns its outputs, then runs the verifier and the capture guard on it.
/// Any failure erases the entry and reports every error.
static rt::Status record(TraceState &s, const std::string &name,
                         const std::vector<Tracer::InputSpec> &inputs,
                         const Tracer::Fn &fn, const EntryKind &kind,
                         const SourceLoc &loc) {
  s.declareWeights();
  if (std::string error = s.moduleFailure(); !error.empty())
    return rt::Status::error("tracer: " + error);
  if (s.recording || s.params->active)
    return rt::Status::error(
        "tracer: " + std::string(kind.what) + " '" + name +
        "' started while another entry is traced; trace entries one after "
        "the other");
  OpBuilder b(&s.context);
  b.setInsertionPointToEnd(s.module->getBody());
  SmallVector<Type> argTypes;
  SmallVector<Attribute> argAttrs;
  for (const Tracer::InputSpec &in : inputs)
    for (int64_t d : in.shape)
      if (d < 0)
        return rt::Status::error("tracer: " + std::string(kind.what) + " '" +
                                 name + "': input '" + in.name +
                                 "' has dimension " + std::to_string(d) +
                                 "; expected sizes >= 0");
  for (const Tracer::InputSpec &in : inputs) {
    Type elem =
        in.type == ElemType::F32 ? Type(b.getF32Type()) : Type(b.getI32Type());
    argTypes.push_back(RankedTensorType::get(in.shape, elem));
    argAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
        ForwardOp::getNameAttrName(), b.getStringAttr(in.name))));
  }
  Location at = s.locationOf(loc);
  Operation *entry = kind.create(b, at, b.getFunctionType(argTypes, {}));
  auto func = cast<FunctionOpInterface>(entry);
  func.setAllArgAttrs(argAttrs);
  Block *body = &entry->getRegion(0).emplaceBlock();
  for (Type t : argTypes)
    body->addArgument(t, at);

  s.recording = true;
  s.params->active = &s;
  s.entryError.clear();
  s.reads.clear();
  s.assigned.clear();
  s.entryFirst = static_cast<int32_t>(s.values.size());
  s.builder.setInsertionPointToEnd(body);
  Tracer::Inputs args;
  for (auto [i, in] : llvm::enumerate(inputs)) {
    TracedValue v;
    v.value = body->getArgument(i);
    v.shape = in.shape;
    v.type = in.type;
    s.values.push_back(std::move(v));
    TraceState::tensorsOf(args)[in.name] =
        s.tensor(static_cast<int32_t>(s.values.size() - 1));
  }

  auto abandon = [&](const std::string &why) {
    entry->erase();
    s.recording = false;
    s.params->active = nullptr;
    s.reads.clear();
    s.assigned.clear();
    s.builder.setInsertionPointToEnd(s.module->getBody());
    return rt::Status::error("tracer: " + std::string(kind.what) + " '" + name +
                             "': " + why);
  };

  Tracer::Outputs outputs;
  try {
    outputs = fn(args);
  } catch (const std::exception &e) {
    return abandon(std::string("the traced function threw: ") + e.what());
  } catch (...) {
    return abandon("the traced function threw");
  }
  if (!s.entryError.empty())
    return abandon(s.entryError);

  SmallVector<Value> results;
  SmallVector<Attribute> resAttrs;
  for (const auto &[outName, t] : outputs) {
    const TracedValue *v = s.lookup(t, loc, "output");
    if (!v)
      return abandon("output '" + outName + "': " + s.entryError);
    results.push_back(v->value);
    resAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
        ForwardOp::getNameAttrName(), b.getStringAttr(outName))));
  }
  OpBuilder end(body, body->end());
  ReturnOp::create(end, at, results);
  func.setType(b.getFunctionType(argTypes, TypeRange(ValueRange(results))));
  func.setAllResultAttrs(resAttrs);

  // The entry's own verifier (names, the loss), then the guard: host
  // interaction is named at each user line.
  DiagnosticCollector errors(&s.context);
  if (failed(verify(entry)))
    return abandon(errors.text());
  // The guard checks every entry; the earlier ones passed it already.
  PassManager pm(&s.context);
  pm.addPass(createVerifyCapture());
  if (failed(pm.run(*s.module)))
    return abandon(errors.text());
  s.recording = false;
  s.params->active = nullptr;
  s.reads.clear();
  s.assigned.clear();
  s.builder.setInsertionPointToEnd(s.module->getBody());
  return rt::Status::ok();
}

rt::Status Tracer::forward(const std::string &name,
                           const std::vector<InputSpec> &inputs, const Fn &fn,
                           SourceLoc loc) {
  EntryKind kind{[&](OpBuilder &b, Location at, FunctionType type) {
                   return ForwardOp::create(b, at, name, type, ArrayAttr(),
                                            ArrayAttr())
                       .getOperation();
                 },
                 "forward"};
  return record(*state_, name, inputs, fn, kind, loc);
}

rt::Status Tracer::trainStep(const std::string &name,
                             const std::vector<InputSpec> &inputs, const Fn &fn,
                             const AdamW &adamw, const StepOptions &options,
                             SourceLoc loc) {
  MLIRContext *ctx = &state_->context;
  Location at = state_->locationOf(loc);
  DiagnosticCollector errors(ctx);
  auto adamwAttr = [&](const AdamW &a) {
    return AdamWAttr::getChecked(
        [&] { return emitError(at); }, ctx, APFloat(a.lr), APFloat(a.beta1),
        APFloat(a.beta2), APFloat(a.eps), APFloat(a.weightDecay),
        a.decoupledWeightDecay);
  };
  auto invalid = [&](const std::string &what) {
    return rt::Status::error("tracer: training step '" + name +
                             "': " + locationText(at) + ": " +
                             firstMessage(errors, what));
  };
  AdamWAttr optimizer = adamwAttr(adamw);
  if (!optimizer)
    return invalid("invalid AdamW settings");
  ArrayAttr groups;
  if (!options.paramGroups.empty()) {
    SmallVector<Attribute> all;
    for (auto [g, group] : llvm::enumerate(options.paramGroups)) {
      SmallVector<Attribute> weights;
      for (const std::string &w : group.weights)
        weights.push_back(FlatSymbolRefAttr::get(ctx, w));
      AdamWAttr a = adamwAttr(group.adamw);
      auto attr =
          a ? ParamGroupAttr::getChecked([&] { return emitError(at); }, ctx,
                                         ArrayAttr::get(ctx, weights), a)
            : ParamGroupAttr();
      if (!attr)
        return invalid("invalid param group " + std::to_string(g + 1));
      all.push_back(attr);
    }
    groups = ArrayAttr::get(ctx, all);
  }
  FloatAttr clip;
  if (options.maxGradNorm)
    clip = FloatAttr::get(Float32Type::get(ctx), *options.maxGradNorm);
  EntryKind kind{[&](OpBuilder &b, Location at, FunctionType type) {
                   return TrainStepOp::create(b, at, name, type, ArrayAttr(),
                                              ArrayAttr(), optimizer, clip,
                                              groups)
                       .getOperation();
                 },
                 "training step"};
  return record(*state_, name, inputs, fn, kind, loc);
}

/// `module` as `.mlir` text, its locations included (they name the user's
/// lines): what toMlir() gives and what the compile cache keys.
static std::string textOf(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                      /*prettyForm=*/false));
  return text;
}

rt::Result<std::string> Tracer::toMlir() const {
  state_->declareWeights();
  if (std::string error = state_->moduleFailure(); !error.empty())
    return rt::Status::error("tracer: " + error);
  return textOf(*state_->module);
}

rt::Result<std::vector<uint8_t>> Tracer::compile(const CompileOptions &options,
                                                 const CompileCache &cache,
                                                 bool *hit) const {
  TraceState &s = *state_;
  if (hit)
    *hit = false;
  s.declareWeights();
  if (std::string error = s.moduleFailure(); !error.empty())
    return rt::Status::error("tracer: " + error);
  std::string key;
  if (cache.enabled()) {
    key = CompileCache::keyOf(textOf(*s.module), options);
    if (std::optional<std::vector<uint8_t>> bytes = cache.find(key)) {
      if (hit)
        *hit = true;
      return std::move(*bytes);
    }
  }
  OwningOpRef<ModuleOp> copy = s.module->clone();
  DiagnosticCollector errors(&s.context);
  FailureOr<std::vector<uint8_t>> bytes = compileToCapmod(*copy, options);
  if (mlir::failed(bytes))
    return rt::Status::error("tracer: compiling the module failed:\n" +
                             errors.text());
  if (!key.empty())
    (void)cache.store(key, *bytes);
  return std::move(*bytes);
}

std::vector<std::string> Tracer::entries() const {
  std::vector<std::string> names;
  for (Operation &op : *state_->module->getBody())
    if (auto f = dyn_cast<FunctionOpInterface>(op))
      names.push_back(f.getName().str());
  return names;
}
