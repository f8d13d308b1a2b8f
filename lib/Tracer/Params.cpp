//===- Params.cpp - A model's weights, on the host and on the device ------===//
//
// Declarations live here; values live in the Weights buffer of the modules
// loaded over them while there are any, and on the host otherwise (set by
// the user before the first load, or saved when the last module goes). A
// change of the declarations drops every module at the next call, after
// saving the values of the weights that still exist.
//
//===----------------------------------------------------------------------===//

#include "ParamsState.h"
#include "TraceState.h"

#include "capture/Dialect/Ag/IR/AgInitializer.h"
#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/rt/environment.h"
#include "capture/rt/initializer.h"

#include "mlir/IR/BuiltinOps.h"

#include <set>

using namespace capture;
using capture::detail::HostValue;
using capture::detail::ParamsState;
using capture::detail::WeightDecl;

/// "file:line:col" of a user's source location ("file:line" when the
/// column is unknown, as from Python).
static std::string where(const SourceLoc &loc) {
  std::string text =
      std::string(loc.file_name()) + ":" + std::to_string(loc.line());
  if (loc.column() != 0)
    text += ":" + std::to_string(loc.column());
  return text;
}

//===----------------------------------------------------------------------===//
// ParamsState
//===----------------------------------------------------------------------===//

const WeightDecl *ParamsState::find(const std::string &name) const {
  for (const WeightDecl &d : decls)
    if (d.name == name)
      return &d;
  return nullptr;
}

std::string ParamsState::namesText() const {
  std::string out;
  for (const WeightDecl &d : decls)
    out += (out.empty() ? "'" : ", '") + d.name + "'";
  return out.empty() ? "none" : out;
}

Weight ParamsState::put(WeightDecl *slot, WeightDecl decl) {
  for (int64_t dim : decl.shape)
    if (dim < 0) {
      fail(decl.loc, "weight '" + decl.name + "': dimension " +
                         std::to_string(dim) +
                         " in its shape; expected sizes >= 0");
      return {};
    }
  decl.generation = nextGeneration++;
  ++version;
  lastChange = "weight '" + decl.name + "' was " +
               (slot ? "re-created" : "declared") + " at " + where(decl.loc);
  host.erase(decl.name);
  Weight w;
  w.params_ = this;
  w.name_ = decl.name;
  w.shape_ = decl.shape;
  w.generation_ = decl.generation;
  if (slot)
    *slot = std::move(decl);
  else
    decls.push_back(std::move(decl));
  return w;
}

void ParamsState::fail(const SourceLoc &loc, const std::string &message) {
  if (error.empty())
    error = where(loc) + ": error: " + message;
}

rt::Result<std::shared_ptr<rt::Device>> ParamsState::getDevice() {
  if (device)
    return device;
  // As the tools do: CAPTURE_DEVICE, else the default (a GPU, else the
  // host device, whose recordings compile for the cpu target).
  rt::Result<std::shared_ptr<rt::Device>> created =
      rt::Device::create(rt::deviceOptionsFromEnvironment());
  if (created.isError())
    return created.status().withContext("Params: creating the device");
  device = created.value();
  return device;
}

rt::Status ParamsState::save() {
  if (loaded.empty())
    return rt::Status::ok();
  rt::Result<std::vector<rt::NamedTensor>> values =
      loaded.begin()->second.module->getParams();
  if (values.isError())
    return values.status().withContext("Params: saving the weights");
  for (rt::NamedTensor &v : values.value()) {
    auto gen = loadedGenerations.find(v.name);
    const WeightDecl *d = find(v.name);
    // A weight re-created since the load has a new value of its own.
    if (!d || gen == loadedGenerations.end() || gen->second != d->generation)
      continue;
    host[v.name] = HostValue{d->generation, std::move(v.tensor)};
  }
  return rt::Status::ok();
}

rt::Status ParamsState::sync() {
  if (loaded.empty() || loadedVersion == version)
    return rt::Status::ok();
  CAPTURE_RT_RETURN_IF_ERROR(save());
  for (auto &[id, m] : loaded)
    dropped[id] = lastChange;
  loaded.clear();
  return rt::Status::ok();
}

rt::Result<uint64_t> ParamsState::load(const std::vector<uint8_t> &bytes) {
  CAPTURE_RT_RETURN_IF_ERROR(sync());
  rt::Result<std::shared_ptr<rt::Device>> dev = getDevice();
  if (dev.isError())
    return dev.status();
  rt::LoadOptions options;
  // Without weights there is no buffer to share.
  if (!loaded.empty() && !decls.empty())
    options.shareWeightsWith = loaded.begin()->second.module.get();
  auto module =
      rt::Module::loadBytes(dev.value(), bytes.data(), bytes.size(), options);
  if (module.isError())
    return module.status();
  if (loaded.empty()) {
    // The first module: the values kept on the host replace its
    // initializers.
    std::vector<rt::NamedTensor> values;
    for (const WeightDecl &d : decls) {
      auto it = host.find(d.name);
      if (it != host.end() && it->second.generation == d.generation)
        values.push_back({d.name, it->second.tensor});
    }
    if (!values.empty())
      CAPTURE_RT_RETURN_IF_ERROR(
          module.value()->setParams(values, {.partial = true}));
    host.clear();
    loadedVersion = version;
    loadedGenerations.clear();
    for (const WeightDecl &d : decls)
      loadedGenerations[d.name] = d.generation;
  }
  uint64_t id = nextId++;
  loaded[id].module = std::move(module).value();
  return id;
}

rt::Module *ParamsState::module(uint64_t id) {
  auto it = loaded.find(id);
  return it == loaded.end() ? nullptr : it->second.module.get();
}

rt::Status ParamsState::release(uint64_t id) {
  auto it = loaded.find(id);
  if (it == loaded.end())
    return rt::Status::ok();
  if (loaded.size() == 1)
    CAPTURE_RT_RETURN_IF_ERROR(save());
  loaded.erase(it);
  return rt::Status::ok();
}

//===----------------------------------------------------------------------===//
// Params
//===----------------------------------------------------------------------===//

Params::Params(std::shared_ptr<rt::Device> device)
    : state_(std::make_shared<ParamsState>()) {
  state_->device = std::move(device);
}

Params::~Params() { state_->alive = false; }

Weight Params::weight(const std::string &name, std::vector<int64_t> shape,
                      Init init, bool trainable, SourceLoc loc) {
  ParamsState &s = *state_;
  if (s.active) {
    s.active->fail(loc, "weight '" + name +
                            "' declared while an entry is traced: declare "
                            "weights before the entries that read them");
    return {};
  }
  if (const WeightDecl *d = s.find(name)) {
    s.fail(loc, "weight '" + name + "' is declared twice (first at " +
                    where(d->loc) +
                    "); to replace a weight on purpose, use Params::recreate");
    return {};
  }
  return s.put(nullptr, {name, std::move(shape), init, trainable, loc, 0});
}

Weight Params::recreate(const std::string &name, std::vector<int64_t> shape,
                        Init init, bool trainable, SourceLoc loc) {
  ParamsState &s = *state_;
  auto it = std::find_if(s.decls.begin(), s.decls.end(),
                         [&](const WeightDecl &d) { return d.name == name; });
  if (s.active) {
    s.active->fail(loc, "weight '" + name +
                            "' re-created while an entry is traced: re-create "
                            "weights between calls");
    return {};
  }
  if (it == s.decls.end()) {
    s.fail(loc, "recreate: no weight '" + name +
                    "' is declared (declared: " + s.namesText() +
                    "); declare new weights with Params::weight");
    return {};
  }
  return s.put(&*it, {name, std::move(shape), init, trainable, loc, 0});
}

std::vector<std::string> Params::names() const {
  std::vector<std::string> out;
  for (const WeightDecl &d : state_->decls)
    out.push_back(d.name);
  return out;
}

rt::Result<std::shared_ptr<rt::Device>> Params::device() {
  return state_->getDevice();
}

rt::Result<std::vector<rt::NamedTensor>> Params::values() {
  ParamsState &s = *state_;
  if (!s.error.empty())
    return rt::Status::error("Params: " + s.error);
  CAPTURE_RT_RETURN_IF_ERROR(s.sync());
  std::vector<rt::NamedTensor> out;
  if (!s.loaded.empty()) {
    rt::Result<std::vector<rt::NamedTensor>> all =
        s.loaded.begin()->second.module->getParams();
    if (all.isError())
      return all.status().withContext("Params::values");
    // Declaration order, not the module's (trainable weights first).
    for (const WeightDecl &d : s.decls)
      for (rt::NamedTensor &v : all.value())
        if (v.name == d.name)
          out.push_back(std::move(v));
    return out;
  }
  // The initializers' values, by the translation the module writer uses.
  Tracer tracer(*this);
  rt::Result<std::string> checked = tracer.toMlir();
  if (checked.isError())
    return checked.status();
  for (const WeightDecl &d : s.decls) {
    auto it = s.host.find(d.name);
    if (it != s.host.end() && it->second.generation == d.generation) {
      out.push_back({d.name, it->second.tensor});
      continue;
    }
    auto op =
        mlir::SymbolTable::lookupSymbolIn(tracer.state_->module.get(), d.name);
    auto weight = llvm::cast<ag::WeightOp>(op);
    size_t n = static_cast<size_t>(weight.getType().getNumElements());
    std::vector<float> data(n);
    rt::evaluateInitializer(ag::toInitializerDesc(*weight.getInitializer()), n,
                            data.data());
    out.push_back({d.name, rt::HostTensor::f32(d.shape, data)});
  }
  return out;
}

rt::Status Params::setValues(const std::vector<rt::NamedTensor> &values) {
  ParamsState &s = *state_;
  if (!s.error.empty())
    return rt::Status::error("Params: " + s.error);
  std::set<std::string> seen;
  for (const rt::NamedTensor &v : values) {
    const WeightDecl *d = s.find(v.name);
    if (!d)
      return rt::Status::error("Params::setValues: no weight '" + v.name +
                               "'; the weights: " + s.namesText());
    if (!seen.insert(v.name).second)
      return rt::Status::error("Params::setValues: weight '" + v.name +
                               "' is given twice");
    std::optional<uint64_t> count = rt::elementCount(v.tensor.shape);
    if (v.tensor.dtype != rt::DType::F32 || v.tensor.shape != d->shape)
      return rt::Status::error(
          "Params::setValues: weight '" + v.name + "' is " +
          rt::formatType(d->shape, rt::DType::F32) + ", got " +
          rt::formatType(v.tensor.shape, v.tensor.dtype));
    if (!count || v.tensor.data.size() != *count * 4)
      return rt::Status::error(
          "Params::setValues: weight '" + v.name + "' needs " +
          std::to_string(count.value_or(0) * 4) + " bytes of data, got " +
          std::to_string(v.tensor.data.size()));
  }
  CAPTURE_RT_RETURN_IF_ERROR(s.sync());
  if (!s.loaded.empty())
    return s.loaded.begin()->second.module->setParams(values,
                                                      {.partial = true});
  for (const rt::NamedTensor &v : values)
    s.host[v.name] = HostValue{s.find(v.name)->generation, v.tensor};
  return rt::Status::ok();
}
