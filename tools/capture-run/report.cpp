//===- report.cpp - What a capture-run run ends with, as text or JSON -----===//
//
// Text: outputs and probes (first 8 values), "command buffers recorded: N",
// the timing line and the --profile table. JSON (--json): one object with
// the same facts and the training steps, for scripts; files (--output-dir,
// --save-params) are written either way.
//
//===----------------------------------------------------------------------===//

#include "cli.h"

#include "capture/rt/npy.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

using namespace capture::rt;

namespace capture::run {
namespace {

/// Value `i` of `t` (f32 or i32) as a double.
double valueAt(const HostTensor &t, size_t i) {
  if (t.dtype == DType::F32) {
    float v;
    std::memcpy(&v, t.data.data() + 4 * i, 4);
    return static_cast<double>(v);
  }
  int32_t v;
  std::memcpy(&v, t.data.data() + 4 * i, 4);
  return static_cast<double>(v);
}

/// {"name":..,"shape":[..],"dtype":..,"elements":N,"values":[first 8]}.
void writeTensorJson(JsonWriter &json, const std::string &name,
                     const HostTensor &t) {
  json.beginObject();
  json.key("name");
  json.value(name);
  json.key("shape");
  json.beginArray();
  for (int64_t d : t.shape)
    json.value(static_cast<uint64_t>(d));
  json.endArray();
  json.key("dtype");
  json.value(t.dtype == DType::F32 ? "f32" : "i32");
  size_t n = t.numElements();
  json.key("elements");
  json.value(static_cast<uint64_t>(n));
  json.key("values");
  json.beginArray();
  for (size_t i = 0; i < std::min<size_t>(n, 8); ++i)
    json.value(valueAt(t, i));
  json.endArray();
  json.endObject();
}

/// [{"step":K,"applied":..,"loss"/"grad_norm" or "refusal"},...].
void writeStepsJson(JsonWriter &json, const std::vector<StepRecord> &steps) {
  json.beginArray();
  for (const StepRecord &s : steps) {
    json.beginObject();
    json.key("step");
    json.value(s.step);
    json.key("applied");
    json.value(s.applied);
    if (s.applied) {
      json.key("loss");
      json.value(s.loss);
      json.key("grad_norm");
      json.value(s.gradNorm);
      if (!s.printed.empty()) {
        json.key("outputs");
        json.beginObject();
        for (const auto &[name, value] : s.printed) {
          json.key(name);
          json.value(value);
        }
        json.endObject();
      }
    } else {
      json.key("refusal");
      json.value(s.refusal);
    }
    json.endObject();
  }
  json.endArray();
}

/// The whole --json object.
std::string runJson(const Options &opts, Module &module, const EntryDesc &entry,
                    const std::vector<NamedTensor> &outputs,
                    const std::vector<NamedTensor> &probes,
                    const RunRecord &record) {
  JsonWriter json;
  json.beginObject();
  json.key("device");
  json.beginObject();
  json.key("name");
  json.value(module.device().info().name);
  json.key("type");
  json.value(deviceTypeName(module.device().info().type));
  json.key("choice");
  json.value(module.device().choice());
  if (module.device().info().type == DeviceType::Cpu) {
    const CpuThreadsSetting &threads = module.device().cpuThreadsSetting();
    json.key("cpu_threads");
    json.beginObject();
    json.key("threads");
    if (threads.threads)
      json.value(static_cast<uint64_t>(*threads.threads));
    else
      json.null();
    json.key("source");
    json.value(cpuThreadsSourceKey(threads));
    if (!threads.reason.empty()) {
      json.key("reason");
      json.value(threads.reason);
    }
    json.endObject();
  }
  const WaitSetting &wait = module.device().waitSetting();
  json.key("wait");
  json.beginObject();
  json.key("policy");
  json.value(waitPolicyName(wait.policy));
  json.key("requested");
  json.value(waitPolicyName(wait.requested));
  if (!wait.reason.empty()) {
    json.key("reason");
    json.value(wait.reason);
  }
  // Read at the end of the run, as the report is written.
  WaitCounts waits = module.device().waitCounts();
  json.key("polled");
  json.value(waits.polled);
  json.key("slept");
  json.value(waits.slept);
  json.key("blocked");
  json.value(waits.blocked);
  json.endObject();
  json.endObject();
  json.key("module");
  json.value(opts.module);
  json.key("entry");
  json.value(entry.name);
  json.key("kind");
  json.value(entryKindName(entry.kind));
  json.key("mode");
  json.value(opts.eager ? "eager" : "replay");
  if (entry.train) {
    json.key("steps");
    writeStepsJson(json, record.steps);
  }
  json.key("outputs");
  json.beginArray();
  for (const NamedTensor &out : outputs)
    writeTensorJson(json, out.name, out.tensor);
  json.endArray();
  json.key("probes");
  json.beginArray();
  for (const NamedTensor &p : probes)
    writeTensorJson(json, p.name, p.tensor);
  json.endArray();
  json.key("command_buffers_recorded");
  json.value(module.recordCount());
  json.key("timing");
  json.beginObject();
  json.key("calls");
  json.value(record.calls);
  json.key("total_us");
  json.value(record.totalUs);
  json.key("mean_us");
  json.value(record.calls ? record.totalUs / static_cast<double>(record.calls)
                          : 0.0);
  json.key("min_us");
  json.value(record.minUs);
  json.key("p10_us");
  json.value(record.quantileUs(0.1));
  json.key("median_us");
  json.value(record.quantileUs(0.5));
  json.key("p90_us");
  json.value(record.quantileUs(0.9));
  json.endObject();
  if (record.profile) {
    json.key("profile");
    writeProfileJson(json, *record.profile);
  }
  json.endObject();
  return json.text();
}

} // namespace

std::string describeCpuThreads(const Device &device) {
  const CpuThreadsSetting &s = device.cpuThreadsSetting();
  std::string count = s.threads ? std::to_string(*s.threads) : "driver default";
  switch (s.source) {
  case CpuThreadsSource::CaptureDefault:
    return count + " (Capture default; set LP_NUM_THREADS or --cpu-threads "
                   "to change)";
  case CpuThreadsSource::Options:
    return count + " (" +
           (s.reason.empty() ? std::string("--cpu-threads") : s.reason) + ")";
  case CpuThreadsSource::Environment:
    break;
  }
  std::string why = s.threads ? "LP_NUM_THREADS from the environment"
                              : "LP_NUM_THREADS='" + s.environmentValue +
                                    "' from the environment, not a count";
  if (s.overriddenOption)
    why += ", which overrides --cpu-threads " +
           (s.reason.empty() ? std::to_string(*s.overriddenOption)
                             : "(" + s.reason + ")");
  return count + " (" + why + ")";
}

std::string describeWait(const Device &device) {
  const WaitSetting &s = device.waitSetting();
  std::string policy = waitPolicyName(s.policy);
  if (s.requested != WaitPolicy::Auto)
    return policy + " (--wait)";
  return policy + " (auto: " + s.reason + "; --wait block|spin to change)";
}

const char *cpuThreadsSourceKey(const CpuThreadsSetting &setting) {
  switch (setting.source) {
  case CpuThreadsSource::Environment:
    return "environment";
  case CpuThreadsSource::Options:
    return "option";
  case CpuThreadsSource::CaptureDefault:
    return "default";
  }
  return "default";
}

void RunRecord::addCall(double us) {
  minUs = calls == 0 ? us : std::min(minUs, us);
  totalUs += us;
  ++calls;
  callUs.push_back(us);
}

double quantile(std::vector<double> samples, double q) {
  if (samples.empty())
    return 0;
  std::sort(samples.begin(), samples.end());
  auto rank = static_cast<size_t>(q * static_cast<double>(samples.size() - 1) +
                                  0.5);
  return samples[std::min(rank, samples.size() - 1)];
}

double RunRecord::quantileUs(double q) const { return quantile(callUs, q); }

void printTensor(const char *kind, const std::string &name,
                 const HostTensor &t) {
  std::printf("%s %s %s:", kind, name.c_str(), formatShape(t.shape).c_str());
  size_t n = t.numElements(), shown = std::min<size_t>(n, 8);
  for (size_t i = 0; i < shown; ++i) {
    if (t.dtype == DType::F32)
      std::printf(" %g", valueAt(t, i));
    else
      std::printf(" %d", static_cast<int32_t>(valueAt(t, i)));
  }
  std::printf("%s\n", n > shown ? " ..." : "");
}

Status makeDirectory(const std::string &dir, const char *option) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Status::error("cannot create " + std::string(option) +
                         " directory '" + dir + "': " + ec.message());
  return Status::ok();
}

Status writeTensor(const std::string &dir, const std::string &name,
                   const HostTensor &t, const char *option) {
  if (name.empty() || name == "." || name == ".." ||
      name.find('/') != std::string::npos ||
      name.find('\\') != std::string::npos)
    return Status::error("cannot write tensor '" + name + "' to " + option +
                         ": its name is not a file name");
  return writeNpyFile(dir + "/" + name + ".npy", t);
}

Status writeWeights(Module &module, const std::string &dir,
                    const char *option) {
  CAPTURE_RT_RETURN_IF_ERROR(makeDirectory(dir, option));
  for (const WeightDesc &w : module.desc().weights) {
    Result<HostTensor> value = module.getParam(w.name);
    if (value.isError())
      return value.status();
    CAPTURE_RT_RETURN_IF_ERROR(writeTensor(dir, w.name, value.value(), option));
  }
  return Status::ok();
}

Status readWeights(Module &module, const std::string &dir, const char *option) {
  std::vector<NamedTensor> values;
  for (const WeightDesc &w : module.desc().weights) {
    std::string path = dir + "/" + w.name + ".npy";
    Result<HostTensor> value = readNpyFile(path);
    if (value.isError())
      return value.status().withContext(std::string(option) + " '" + dir +
                                        "': weight '" + w.name + "'");
    values.push_back({w.name, std::move(value).value()});
  }
  return module.setParams(values).withContext(std::string(option) + " '" + dir +
                                              "'");
}

int report(const Options &opts, Module &module, const std::string &entryName,
           const std::vector<NamedTensor> &outputs,
           const std::vector<NamedTensor> &probes, const RunRecord &record) {
  Result<const EntryDesc *> entry = module.findEntry(entryName);
  if (entry.isError())
    return runtimeError(entry.message());
  if (!opts.outputDir.empty()) {
    if (Status s = makeDirectory(opts.outputDir, "--output-dir"); s.isError())
      return runtimeError(s.message());
    for (const std::vector<NamedTensor> *list :
         {&outputs, static_cast<const std::vector<NamedTensor> *>(&probes)})
      for (const NamedTensor &t : *list)
        if (Status s =
                writeTensor(opts.outputDir, t.name, t.tensor, "--output-dir");
            s.isError())
          return runtimeError(s.message());
  }
  if (!opts.saveParams.empty())
    if (Status s = writeWeights(module, opts.saveParams, "--save-params");
        s.isError())
      return runtimeError(s.message());

  if (opts.json) {
    std::printf(
        "%s\n",
        runJson(opts, module, *entry.value(), outputs, probes, record).c_str());
    return 0;
  }
  for (const NamedTensor &out : outputs)
    printTensor("output", out.name, out.tensor);
  for (const NamedTensor &p : probes)
    printTensor("probe", p.name, p.tensor);
  std::printf("command buffers recorded: %llu\n",
              static_cast<unsigned long long>(module.recordCount()));
  double mean =
      record.calls ? record.totalUs / static_cast<double>(record.calls) : 0.0;
  if (entry.value()->train)
    std::printf("train%s: %llu steps, %.1f us/step (min %.1f us, median "
                "%.1f us)\n",
                opts.eager ? " (eager)" : "",
                static_cast<unsigned long long>(record.calls), mean,
                record.minUs, record.quantileUs(0.5));
  else
    std::printf("%s: %llu calls, %.1f us/call (min %.1f us, median %.1f "
                "us)\n",
                opts.eager ? "eager" : "replay",
                static_cast<unsigned long long>(record.calls), mean,
                record.minUs, record.quantileUs(0.5));
  if (record.profile) {
    printProfile(*record.profile);
    WaitCounts waits = module.device().waitCounts();
    std::printf("  waits (%s, loading included): %llu ended polling, %llu "
                "while sleeping, %llu blocked\n",
                waitPolicyName(module.device().waitSetting().policy),
                static_cast<unsigned long long>(waits.polled),
                static_cast<unsigned long long>(waits.slept),
                static_cast<unsigned long long>(waits.blocked));
  }
  return 0;
}

} // namespace capture::run
