//===- info.cpp - capture-run --info / --graph: a module without a device -===//
//
// Reads the file and counts (capture/rt/census.h); no Vulkan device is
// created and nothing runs. The module is parsed without the semantic
// verifier first, so that a module the loader would refuse can still be
// looked at: the verifier's verdict is printed last, and a refusal makes
// the exit code 1.
//
//===----------------------------------------------------------------------===//

#include "cli.h"

#include "capture/rt/capmod.h"
#include "capture/rt/census.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>

using namespace capture::rt;

namespace capture::run {
namespace {

/// "1.1.0" for a VK_MAKE_API_VERSION value (no Vulkan headers needed).
std::string apiVersion(uint32_t v) {
  return std::to_string((v >> 22) & 0x7f) + "." +
         std::to_string((v >> 12) & 0x3ff) + "." + std::to_string(v & 0xfff);
}

/// "64x1x1".
std::string joinSizes(const std::vector<uint32_t> &sizes) {
  std::string s;
  for (uint32_t v : sizes)
    s += (s.empty() ? "" : "x") + std::to_string(v);
  return s;
}

/// The bytes of file `path`.
Result<std::vector<uint8_t>> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot open module file '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad())
    return Status::error("cannot read module file '" + path + "'");
  return bytes;
}

/// The census as text tables, then the verifier's verdict `verified`.
void printCensus(const Options &opts, const ModuleCensus &c,
                 const Status &verified) {
  std::printf("module: %s\n", opts.module.c_str());
  std::printf("producer: %s, format version %u, Vulkan %s, binding alignment "
              "%u bytes\n",
              c.producer.c_str(), c.formatVersion,
              apiVersion(c.vulkanApiVersion).c_str(), c.bindingAlignment);
  int width = 4;         // "name"
  int bindingsWidth = 8; // "bindings"
  std::vector<std::string> bindings;
  for (const KernelCensus &k : c.kernels) {
    width = std::max(width, static_cast<int>(k.name.size()));
    // "3", or "3 (1 texel)" when some are TexelBufferRgba32f bindings.
    bindings.push_back(std::to_string(k.numBindings) +
                       (k.texelBindings
                            ? " (" + std::to_string(k.texelBindings) + " texel)"
                            : ""));
    bindingsWidth =
        std::max(bindingsWidth, static_cast<int>(bindings.back().size()));
  }
  std::printf("kernels: %zu\n", c.kernels.size());
  std::printf("  %-*s  %*s  %12s  %12s  %10s\n", width, "name", bindingsWidth,
              "bindings", "workgroup", "SPIR-V bytes", "dispatches");
  for (size_t i = 0; i < c.kernels.size(); ++i) {
    const KernelCensus &k = c.kernels[i];
    std::printf("  %-*s  %*s  %12s  %12llu  %10llu\n", width, k.name.c_str(),
                bindingsWidth, bindings[i].c_str(),
                joinSizes(k.workgroupSize).c_str(),
                static_cast<unsigned long long>(k.spirvBytes),
                static_cast<unsigned long long>(k.dispatches));
  }
  width = 4;
  for (const EntryCensus &e : c.entries)
    width = std::max(width, static_cast<int>(e.name.size()));
  std::printf("entries: %zu\n", c.entries.size());
  std::printf("  %-*s  %-7s  %10s  %8s  %7s  %10s  %6s  %7s  %6s  %9s  "
              "%9s\n",
              width, "name", "kind", "dispatches", "barriers", "kernels",
              "workgroups", "inputs", "outputs", "probes", "in bytes",
              "out bytes");
  for (const EntryCensus &e : c.entries)
    std::printf("  %-*s  %-7s  %10llu  %8llu  %7llu  %10llu  %6llu  %7llu  "
                "%6llu  %9llu  %9llu\n",
                width, e.name.c_str(), entryKindName(e.kind),
                static_cast<unsigned long long>(e.dispatches),
                static_cast<unsigned long long>(e.barriers),
                static_cast<unsigned long long>(e.kernels),
                static_cast<unsigned long long>(e.workgroups),
                static_cast<unsigned long long>(e.inputs),
                static_cast<unsigned long long>(e.outputs),
                static_cast<unsigned long long>(e.probes),
                static_cast<unsigned long long>(e.inputBytes),
                static_cast<unsigned long long>(e.outputBytes));
  for (const EntryCensus &e : c.entries) {
    if (e.scratchBytes == 0)
      continue;
    std::printf("  %-*s  scratch %llu bytes, liveness lower bound %llu bytes "
                "(%.2fx)\n",
                width, e.name.c_str(),
                static_cast<unsigned long long>(e.scratchBytes),
                static_cast<unsigned long long>(e.scratchLiveBytes),
                e.scratchLiveBytes
                    ? static_cast<double>(e.scratchBytes) / e.scratchLiveBytes
                    : 0.0);
  }
  uint64_t buffers = 0;
  for (const BufferKindCensus &b : c.buffers)
    buffers += b.buffers;
  std::printf("buffers: %llu, %llu bytes\n",
              static_cast<unsigned long long>(buffers),
              static_cast<unsigned long long>(c.bufferBytes));
  std::printf("  %-9s  %7s  %12s\n", "kind", "buffers", "bytes");
  for (const BufferKindCensus &b : c.buffers)
    std::printf("  %-9s  %7llu  %12llu\n", bufferKindName(b.kind),
                static_cast<unsigned long long>(b.buffers),
                static_cast<unsigned long long>(b.bytes));
  std::string unset;
  if (c.unsetWeights)
    unset = ", " + std::to_string(c.unsetWeights) +
            " without an initial value: set them with --param";
  std::printf("weights: %llu (%llu trainable%s), %llu bytes\n",
              static_cast<unsigned long long>(c.weights),
              static_cast<unsigned long long>(c.trainableWeights),
              unset.c_str(), static_cast<unsigned long long>(c.weightBytes));
  if (c.hostCodeBytes)
    std::printf("host code: %llu bytes, ISA level %s (the host device runs "
                "it)\n",
                static_cast<unsigned long long>(c.hostCodeBytes),
                c.hostIsaLevel.c_str());
  else
    std::printf("host code: none (capture-aot --target=cpu adds it for the "
                "host device)\n");
  std::printf("verified: %s\n",
              verified.isOk() ? "ok" : verified.message().c_str());
}

/// The census and the verdict as one JSON object on stdout.
void writeCensusJson(const Options &opts, const ModuleCensus &c,
                     const Status &verified) {
  JsonWriter json;
  json.beginObject();
  json.key("module");
  json.value(opts.module);
  json.key("producer");
  json.value(c.producer);
  json.key("format_version");
  json.value(static_cast<uint64_t>(c.formatVersion));
  json.key("vulkan");
  json.value(apiVersion(c.vulkanApiVersion));
  json.key("binding_alignment");
  json.value(static_cast<uint64_t>(c.bindingAlignment));
  json.key("verified");
  json.value(verified.isOk());
  if (verified.isError()) {
    json.key("verify_error");
    json.value(verified.message());
  }
  json.key("kernels");
  json.beginArray();
  for (const KernelCensus &k : c.kernels) {
    json.beginObject();
    json.key("name");
    json.value(k.name);
    json.key("bindings");
    json.value(static_cast<uint64_t>(k.numBindings));
    json.key("texel_bindings");
    json.value(static_cast<uint64_t>(k.texelBindings));
    json.key("workgroup_size");
    json.beginArray();
    for (uint32_t v : k.workgroupSize)
      json.value(static_cast<uint64_t>(v));
    json.endArray();
    json.key("spirv_bytes");
    json.value(k.spirvBytes);
    json.key("dispatches");
    json.value(k.dispatches);
    json.key("loop_iterations");
    json.value(k.loopIterations);
    json.key("subgroup_multiple");
    json.value(static_cast<uint64_t>(k.subgroupMultiple));
    json.endObject();
  }
  json.endArray();
  json.key("entries");
  json.beginArray();
  for (const EntryCensus &e : c.entries) {
    json.beginObject();
    json.key("name");
    json.value(e.name);
    json.key("kind");
    json.value(entryKindName(e.kind));
    const std::pair<const char *, uint64_t> counts[] = {
        {"dispatches", e.dispatches},
        {"barriers", e.barriers},
        {"kernels", e.kernels},
        {"workgroups", e.workgroups},
        {"inputs", e.inputs},
        {"outputs", e.outputs},
        {"probes", e.probes},
        {"input_bytes", e.inputBytes},
        {"output_bytes", e.outputBytes},
        {"scratch_bytes", e.scratchBytes},
        {"scratch_live_bytes", e.scratchLiveBytes},
        {"work", e.work}};
    for (auto [name, n] : counts) {
      json.key(name);
      json.value(n);
    }
    json.endObject();
  }
  json.endArray();
  json.key("buffers");
  json.beginArray();
  for (const BufferKindCensus &b : c.buffers) {
    json.beginObject();
    json.key("kind");
    json.value(bufferKindName(b.kind));
    json.key("buffers");
    json.value(b.buffers);
    json.key("bytes");
    json.value(b.bytes);
    json.endObject();
  }
  json.endArray();
  json.key("buffer_bytes");
  json.value(c.bufferBytes);
  json.key("weights");
  json.beginObject();
  json.key("count");
  json.value(c.weights);
  json.key("trainable");
  json.value(c.trainableWeights);
  json.key("unset");
  json.value(c.unsetWeights);
  json.key("bytes");
  json.value(c.weightBytes);
  json.endObject();
  json.key("host_code");
  json.beginObject();
  json.key("bytes");
  json.value(c.hostCodeBytes);
  json.key("isa_level");
  json.value(c.hostIsaLevel);
  json.endObject();
  json.endObject();
  std::printf("%s\n", json.text().c_str());
}

} // namespace

int describeModule(const Options &opts) {
  Result<std::vector<uint8_t>> bytes = readFile(opts.module);
  if (bytes.isError())
    return runtimeError(bytes.message());
  Result<ModuleDesc> desc = parseCapmod(bytes->data(), bytes->size());
  if (desc.isError())
    return runtimeError(opts.module + ": " + desc.message());
  Status verified = verifyModuleDesc(desc.value());
  if (opts.info) {
    Result<ModuleCensus> census = moduleCensus(desc.value());
    if (census.isError())
      return runtimeError(census.message());
    if (opts.json)
      writeCensusJson(opts, census.value(), verified);
    else
      printCensus(opts, census.value(), verified);
  }
  if (opts.graph) {
    std::vector<std::string> entries;
    if (!opts.entry.empty())
      entries.push_back(opts.entry);
    else
      for (const EntryDesc &e : desc->entries)
        entries.push_back(e.name);
    for (const std::string &name : entries) {
      Result<std::string> graph = formatEntryGraph(desc.value(), name);
      if (graph.isError())
        return runtimeError(graph.message());
      std::printf("%s", graph->c_str());
    }
  }
  if (verified.isError())
    return runtimeError(opts.module +
                        ": the module does not verify: " + verified.message());
  return 0;
}

} // namespace capture::run
