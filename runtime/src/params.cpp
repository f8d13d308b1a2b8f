//===- params.cpp - All weights at once; gradients; optimizer reset -------===//
//
// setParams checks every tensor before touching the device, so that a bad
// list changes nothing, then moves all of them in one upload; getParams
// reads the whole Weights buffer back once. readGradients and
// resetOptimizer work on the ranges a training entry's TrainDesc names.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/suggest.h"
#include "module_impl.h"

#include <cstring>
#include <set>

namespace capture::rt {
namespace {

/// "'a', 'b'" or "none".
std::string weightNames(const std::vector<const WeightDesc *> &weights) {
  std::string s;
  for (const WeightDesc *w : weights)
    s += (s.empty() ? "'" : ", '") + w->name + "'";
  return s.empty() ? "none" : s;
}

/// The weights lying inside training entry `e`'s parameter range.
std::vector<const WeightDesc *> trainedWeights(const ModuleDesc &desc,
                                               const EntryDesc &e) {
  const BufferRangeDesc &p = e.train->params;
  std::vector<const WeightDesc *> out;
  for (const WeightDesc &w : desc.weights)
    if (w.offset >= p.offset && w.offset + w.size <= p.offset + p.size)
      out.push_back(&w);
  return out;
}

HostTensor slice(const WeightDesc &w, const std::vector<uint8_t> &bytes,
                 uint64_t offset) {
  HostTensor t;
  t.dtype = w.dtype;
  t.shape = w.shape;
  t.data.assign(bytes.begin() + offset, bytes.begin() + offset + w.size);
  return t;
}

} // namespace

Status Module::setParams(const std::vector<NamedTensor> &params,
                         const SetParamsOptions &options) {
  const ModuleDesc &desc = impl_->desc;
  std::vector<const WeightDesc *> all;
  for (const WeightDesc &w : desc.weights)
    all.push_back(&w);
  std::vector<const HostTensor *> given(desc.weights.size(), nullptr);
  // Everything is checked before anything is sent: on error nothing changed.
  for (const NamedTensor &p : params) {
    size_t i = 0;
    while (i < desc.weights.size() && desc.weights[i].name != p.name)
      ++i;
    if (i == desc.weights.size())
      return Status::error("setParams: unknown parameter '" + p.name + "'" +
                           suggestNameIn(p.name, all) +
                           "; the module's weights: " + weightNames(all));
    const WeightDesc &w = desc.weights[i];
    if (given[i])
      return Status::error("setParams: parameter '" + w.name +
                           "' given twice, expected each at most once");
    if (p.tensor.shape != w.shape || p.tensor.dtype != w.dtype)
      return Status::error("setParams: parameter '" + w.name + "' has shape " +
                           formatType(w.shape, w.dtype) + ", got " +
                           formatType(p.tensor.shape, p.tensor.dtype));
    if (p.tensor.data.size() != w.size)
      return Status::error("setParams: parameter '" + w.name + "' of shape " +
                           formatType(w.shape, w.dtype) + " needs " +
                           std::to_string(w.size) + " bytes of data, got " +
                           std::to_string(p.tensor.data.size()));
    given[i] = &p.tensor;
  }
  if (!options.partial) {
    std::vector<const WeightDesc *> missing;
    for (size_t i = 0; i < desc.weights.size(); ++i)
      if (!given[i])
        missing.push_back(&desc.weights[i]);
    if (!missing.empty())
      return Status::error(
          "setParams: missing parameter" +
          std::string(missing.size() > 1 ? "s " : " ") + weightNames(missing) +
          " (got " + std::to_string(params.size()) + " of " +
          std::to_string(desc.weights.size()) +
          "); pass SetParamsOptions{.partial = true} to set only some");
  }
  if (desc.weightsBuffer < 0 || params.empty())
    return Status::ok();
  uint32_t wb = static_cast<uint32_t>(desc.weightsBuffer);
  std::vector<uint8_t> image(desc.buffers[wb].size, 0);
  std::vector<VkBufferCopy> regions;
  for (size_t i = 0; i < desc.weights.size(); ++i) {
    const WeightDesc &w = desc.weights[i];
    if (!given[i] || !w.size)
      continue;
    std::memcpy(image.data() + w.offset, given[i]->data.data(), w.size);
    regions.push_back({w.offset, w.offset, w.size});
  }
  CAPTURE_RT_RETURN_IF_ERROR(impl_->uploadRegions(
      wb, image, regions, std::to_string(regions.size()) + " parameters"));
  for (size_t i = 0; i < desc.weights.size(); ++i)
    if (given[i])
      impl_->unsetWeights->erase(desc.weights[i].name);
  return Status::ok();
}

Result<std::vector<NamedTensor>> Module::getParams() {
  const ModuleDesc &desc = impl_->desc;
  std::vector<NamedTensor> out;
  if (desc.weightsBuffer < 0)
    return out;
  uint32_t wb = static_cast<uint32_t>(desc.weightsBuffer);
  Result<std::vector<uint8_t>> bytes =
      impl_->download(wb, 0, desc.buffers[wb].size, "every parameter");
  if (bytes.isError())
    return bytes.status();
  for (const WeightDesc &w : desc.weights)
    out.push_back({w.name, slice(w, bytes.value(), w.offset)});
  return out;
}

Result<TrainGradients> Module::readGradients(std::string_view entry) {
  Result<size_t> index = impl_->trainEntryIndex(entry, "readGradients");
  if (index.isError())
    return index.status();
  return readGradientsAt(index.value());
}

Result<TrainGradients> Module::readGradientsAt(size_t index) {
  settleDeferred(*impl_);
  const EntryDesc &e = impl_->desc.entries[index];
  if (!e.train->grads)
    return Status::error(
        "readGradients: entry '" + e.name +
        "' does not describe where its gradients live (the module file has "
        "no train.grads range), expected a module written with one; "
        "recompile it with a current compiler");
  if (!impl_->entries[index].train->stepped)
    return Status::error("readGradients: entry '" + e.name +
                         "' has not run a step since load, expected one "
                         "first (the gradients are those of the last step)");
  const BufferRangeDesc &g = *e.train->grads;
  Result<std::vector<uint8_t>> bytes = impl_->download(
      g.buffer, g.offset, g.size, "gradients of entry '" + e.name + "'");
  if (bytes.isError())
    return bytes.status();
  TrainGradients out;
  for (const WeightDesc *w : trainedWeights(impl_->desc, e))
    out.perWeight.push_back(
        {w->name,
         slice(*w, bytes.value(), w->offset - e.train->params.offset)});
  out.flat.dtype = DType::F32;
  out.flat.shape = {static_cast<int64_t>(g.size / 4)};
  out.flat.data = std::move(bytes).value();
  return out;
}

Status Module::resetOptimizer(std::string_view entry) {
  Result<size_t> index = impl_->trainEntryIndex(entry, "resetOptimizer");
  if (index.isError())
    return index.status();
  return resetOptimizerAt(index.value());
}

Status Module::resetOptimizerAt(size_t index) {
  settleDeferred(*impl_);
  const EntryDesc &e = impl_->desc.entries[index];
  std::vector<FillRange> ranges;
  for (const BufferRangeDesc *r : {&e.train->moment1, &e.train->moment2}) {
    // Fills need 4-byte aligned offsets; binding_alignment may in principle
    // be smaller, so such a range is zeroed by a copy instead.
    if (r->offset % 4 == 0) {
      ranges.push_back({r->buffer, r->offset, r->size});
      continue;
    }
    std::vector<uint8_t> zeros(r->size, 0);
    CAPTURE_RT_RETURN_IF_ERROR(
        impl_->upload(r->buffer, r->offset, zeros.data(), zeros.size(),
                      "moments of entry '" + e.name + "'"));
  }
  if (!ranges.empty())
    CAPTURE_RT_RETURN_IF_ERROR(
        impl_->zeroFill(ranges, "moments of entry '" + e.name + "'"));
  impl_->entries[index].train->state.step = 0;
  return Status::ok();
}

} // namespace capture::rt
