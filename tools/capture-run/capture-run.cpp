//===- capture-run.cpp - Replays an entry of a .capmod module -------------===//
//
// capture-run FILE.capmod --entry NAME [--input name=file.npy]...
//     [--param name=file.npy]... [--output-dir DIR] [--device SEL]
//     [--probe NAME]... [--save-params DIR]
//     forward entries:  [--repeat N]
//     training entries: [--steps N] [--keep-going] [--lr-at K=VALUE]...
//                       [--max-grad-norm-at K=VALUE]...
//                       [--input-at K:NAME=FILE.npy]... [--dump-state DIR]
//
// Prints the device, for a training entry one line per step
// ("step K: loss=... grad_norm=..." or "step K: update not applied: ..."),
// each output and probe (first 8 values), the number of recorded command
// buffers and the host wall-clock time per call. Errors: "capture-run:
// error: ..." on stderr and exit code 1, also when a training step was
// refused; bad usage: the usage text and exit code 2.
//
//===----------------------------------------------------------------------===//

#include "cli.h"

#include "capture/rt/device.h"
#include "capture/rt/npy.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

using namespace capture::rt;

namespace capture::run {
namespace {

constexpr const char *kUsage =
    "usage: capture-run FILE.capmod [--entry NAME] [--input name=file.npy]...\n"
    "                   [--param name=file.npy]... [--output-dir DIR]\n"
    "                   [--device SEL] [--probe NAME]... [--save-params DIR]\n"
    "                   [--repeat N]                            (forward)\n"
    "                   [--steps N] [--keep-going] [--lr-at K=VALUE]...\n"
    "                   [--max-grad-norm-at K=VALUE]...\n"
    "                   [--input-at K:NAME=FILE.npy]... [--dump-state DIR]\n"
    "                                                           (training)\n"
    "\n"
    "Replays entry NAME of a Capture module and prints its outputs. --entry\n"
    "may be omitted when the module has one entry.\n"
    "  --input name=file.npy  value of input `name` (every input, once; not\n"
    "                         the hyperparameter inputs of a training entry)\n"
    "  --param name=file.npy  replaces weight `name` before the first replay\n"
    "  --output-dir DIR       writes DIR/<output>.npy (last replay) and\n"
    "                         DIR/<probe>.npy\n"
    "  --device SEL           device index, 'cpu', 'gpu' or part of a name\n"
    "                         (default: env CAPTURE_DEVICE, else a GPU, else\n"
    "                         lavapipe)\n"
    "  --probe NAME           reads probe NAME after the last replay\n"
    "  --save-params DIR      writes DIR/<weight>.npy for every weight at the\n"
    "                         end\n"
    "  --repeat N             forward entry: number of replays (default 1)\n"
    "  --steps N              training entry: number of steps (default 1);\n"
    "                         prints 'step K: loss=L grad_norm=G' per step, "
    "or\n"
    "                         'step K: update not applied: ...' when the\n"
    "                         gradient norm is not finite, which stops the\n"
    "                         run with exit code 1\n"
    "  --keep-going           runs the remaining steps after a refused one\n"
    "                         (the exit code is still 1)\n"
    "  --lr-at K=VALUE        learning rate from step K on (K in 1..N)\n"
    "  --max-grad-norm-at K=VALUE\n"
    "                         gradient clipping limit from step K on\n"
    "  --input-at K:NAME=FILE.npy\n"
    "                         input NAME for step K only\n"
    "  --dump-state DIR       after every step K writes DIR/step-K/: each\n"
    "                         weight as <name>.npy, adam.m.npy, adam.v.npy\n"
    "                         (flat moments) and t.txt (the step counter)\n"
    "Env: CAPTURE_VALIDATION=1 enables the Vulkan validation layers (any\n"
    "message then fails the run); CAPTURE_DEVICE selects the device.\n";

/// Parses a count from 1 to 1e9 for `option`.
std::optional<std::string> parseCount(const char *option,
                                      const std::string &value,
                                      std::optional<uint64_t> &out) {
  char *end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(value.c_str(), &end, 10);
  if (errno || *end || value[0] == '-' || n < 1 || n > 1000000000ull)
    return "option " + std::string(option) +
           " expects a count from 1 to 1000000000, got '" + value + "'";
  out = n;
  return std::nullopt;
}

/// Parses the step number K of a --*-at option (checked against --steps
/// once every option is read).
bool parseStep(const std::string &text, uint64_t &step) {
  if (text.empty() || text[0] == '-' || text[0] == '+')
    return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (errno || *end)
    return false;
  step = n;
  return true;
}

/// Parses K=VALUE of `option` (--lr-at, --max-grad-norm-at).
std::optional<std::string> parseStepValue(const std::string &option,
                                          const std::string &value,
                                          std::vector<StepValue> &out) {
  std::string bad = "option " + option +
                    " expects K=VALUE with a step number K and a number "
                    "VALUE, got '" +
                    value + "'";
  size_t eq = value.find('=');
  if (eq == std::string::npos)
    return bad;
  StepValue sv;
  sv.text = value;
  std::string number = value.substr(eq + 1);
  if (!parseStep(value.substr(0, eq), sv.step) || number.empty())
    return bad;
  char *end = nullptr;
  errno = 0;
  sv.value = std::strtof(number.c_str(), &end);
  // Out-of-range values become +-inf or 0: refused as numbers here rather
  // than silently rounded.
  if (errno || *end || std::isspace(static_cast<unsigned char>(number[0])))
    return bad;
  out.push_back(sv);
  return std::nullopt;
}

/// Parses K:NAME=FILE.npy of --input-at.
std::optional<std::string> parseStepInput(const std::string &value,
                                          std::vector<StepInput> &out) {
  std::string bad = "option --input-at expects K:NAME=FILE.npy with a step "
                    "number K, got '" +
                    value + "'";
  size_t colon = value.find(':');
  if (colon == std::string::npos)
    return bad;
  size_t eq = value.find('=', colon);
  StepInput si;
  si.text = value;
  if (!parseStep(value.substr(0, colon), si.step) || eq == std::string::npos ||
      eq == colon + 1 || eq + 1 == value.size())
    return bad;
  si.input = {value.substr(colon + 1, eq - colon - 1), value.substr(eq + 1)};
  out.push_back(si);
  return std::nullopt;
}

/// The --*-at options refer to steps 1..N.
std::optional<std::string> checkSteps(const Options &opts) {
  uint64_t steps = opts.steps.value_or(1);
  auto check = [&](const char *option, uint64_t step,
                   const std::string &text) -> std::optional<std::string> {
    if (step >= 1 && step <= steps)
      return std::nullopt;
    return "option " + std::string(option) + " '" + text + "': step " +
           std::to_string(step) + " is not in 1.." + std::to_string(steps) +
           " (--steps " + std::to_string(steps) + ")";
  };
  for (const StepValue &sv : opts.lrAt)
    if (auto e = check("--lr-at", sv.step, sv.text))
      return e;
  for (const StepValue &sv : opts.maxGradNormAt)
    if (auto e = check("--max-grad-norm-at", sv.step, sv.text))
      return e;
  for (const StepInput &si : opts.inputAt)
    if (auto e = check("--input-at", si.step, si.text))
      return e;
  return std::nullopt;
}

/// Parses argv into `opts`; returns an error message for bad usage.
std::optional<std::string> parseArgs(int argc, char **argv, Options &opts,
                                     bool &help) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      help = true;
      return std::nullopt;
    }
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      if (!opts.module.empty())
        return "more than one module file: '" + opts.module + "' and '" + arg +
               "'";
      opts.module = arg;
      continue;
    }
    // Accept both "--flag value" and "--flag=value".
    std::string flag = arg, value;
    bool hasValue = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      hasValue = true;
    }
    if (flag == "--keep-going") {
      if (hasValue)
        return std::string("option --keep-going takes no value");
      opts.keepGoing = true;
      continue;
    }
    static const char *known[] = {
        "--entry",           "--input",    "--param",       "--output-dir",
        "--repeat",          "--device",   "--probe",       "--steps",
        "--lr-at",           "--input-at", "--save-params", "--dump-state",
        "--max-grad-norm-at"};
    if (std::find_if(std::begin(known), std::end(known), [&](const char *k) {
          return flag == k;
        }) == std::end(known))
      return "unknown option '" + flag + "'";
    if (!hasValue) {
      if (i + 1 >= argc)
        return "option " + flag + " needs a value";
      value = argv[++i];
    }
    if (value.empty())
      return "option " + flag + " needs a non-empty value";
    std::optional<std::string> error;
    if (flag == "--input" || flag == "--param") {
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
        return "option " + flag + " expects name=file.npy, got '" + value + "'";
      NamedPath np{value.substr(0, eq), value.substr(eq + 1)};
      (flag == "--input" ? opts.inputs : opts.params).push_back(np);
    } else if (flag == "--entry") {
      opts.entry = value;
    } else if (flag == "--output-dir") {
      opts.outputDir = value;
    } else if (flag == "--device") {
      opts.device = value;
    } else if (flag == "--probe") {
      opts.probes.push_back(value);
    } else if (flag == "--save-params") {
      opts.saveParams = value;
    } else if (flag == "--dump-state") {
      opts.dumpState = value;
    } else if (flag == "--repeat") {
      error = parseCount("--repeat", value, opts.repeat);
    } else if (flag == "--steps") {
      error = parseCount("--steps", value, opts.steps);
    } else if (flag == "--lr-at") {
      error = parseStepValue(flag, value, opts.lrAt);
    } else if (flag == "--max-grad-norm-at") {
      error = parseStepValue(flag, value, opts.maxGradNormAt);
    } else if (flag == "--input-at") {
      error = parseStepInput(value, opts.inputAt);
    }
    if (error)
      return error;
  }
  if (opts.module.empty())
    return std::string("no module file given");
  if (std::optional<std::string> error = checkSteps(opts))
    return error;
  auto exists = [](const std::string &path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
  };
  if (!exists(opts.module))
    return "module file '" + opts.module + "' does not exist";
  for (const auto *list : {&opts.inputs, &opts.params})
    for (const NamedPath &np : *list)
      if (!exists(np.path))
        return "file '" + np.path + "' (for " + np.name + ") does not exist";
  for (const StepInput &si : opts.inputAt)
    if (!exists(si.input.path))
      return "file '" + si.input.path + "' (for --input-at " + si.text +
             ") does not exist";
  return std::nullopt;
}

/// Options that only make sense for the other kind of entry are usage
/// errors, found once the module says which kind the entry is.
std::optional<std::string> checkForwardOptions(const Options &opts,
                                               const EntryDesc &entry) {
  std::string kind = "; entry '" + entry.name + "' is a Forward entry";
  if (opts.steps)
    return "option --steps is only valid for a Train entry" + kind +
           " (use --repeat)";
  const std::pair<bool, const char *> trainOnly[] = {
      {opts.keepGoing, "--keep-going"},
      {!opts.lrAt.empty(), "--lr-at"},
      {!opts.maxGradNormAt.empty(), "--max-grad-norm-at"},
      {!opts.inputAt.empty(), "--input-at"},
      {!opts.dumpState.empty(), "--dump-state"}};
  for (auto [given, option] : trainOnly)
    if (given)
      return "option " + std::string(option) +
             " is only valid for a Train entry" + kind;
  return std::nullopt;
}

/// Replays a forward entry --repeat times, then reports.
int replayForward(const Options &opts, Module &module,
                  const std::string &entryName,
                  const std::vector<NamedTensor> &inputs) {
  uint64_t repeat = opts.repeat.value_or(1);
  std::vector<NamedTensor> outputs;
  double totalUs = 0, minUs = 0;
  for (uint64_t i = 0; i < repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    Result<std::vector<NamedTensor>> result = module.run(entryName, inputs);
    auto end = std::chrono::steady_clock::now();
    if (result.isError())
      return runtimeError(result.message());
    double us = std::chrono::duration<double, std::micro>(end - start).count();
    totalUs += us;
    minUs = i == 0 ? us : std::min(minUs, us);
    if (i + 1 == repeat)
      outputs = std::move(result).value();
  }
  if (int rc = report(opts, module, entryName, outputs))
    return rc;
  std::printf("replay: %llu calls, %.1f us/call (min %.1f us)\n",
              static_cast<unsigned long long>(repeat),
              totalUs / static_cast<double>(repeat), minUs);
  return 0;
}

/// Loads, replays and prints; `validationMessages` counts what the
/// validation layer reports (CAPTURE_VALIDATION=1), including leaks reported
/// when the device is destroyed on return.
int replay(const Options &opts, uint64_t &validationMessages) {
  DeviceOptions deviceOptions;
  deviceOptions.selector = opts.device;
  deviceOptions.onValidationMessage = [&](const std::string &) {
    ++validationMessages;
  };
  Result<std::shared_ptr<Device>> device = Device::create(deviceOptions);
  if (device.isError())
    return runtimeError(device.message());
  std::printf("device: %s\n", describeDevice(device.value()->info()).c_str());
  std::fflush(stdout);

  Result<std::unique_ptr<Module>> loaded =
      Module::loadFile(device.value(), opts.module);
  if (loaded.isError())
    return runtimeError(loaded.message());
  Module &module = *loaded.value();

  std::string entryName = opts.entry;
  if (entryName.empty()) {
    std::vector<std::string> names = module.entryNames();
    if (names.size() != 1) {
      std::string list;
      for (const std::string &n : names)
        list += (list.empty() ? "'" : ", '") + n + "'";
      return runtimeError("the module has " + std::to_string(names.size()) +
                          " entries, choose one with --entry: " + list);
    }
    entryName = names[0];
  }
  Result<const EntryDesc *> found = module.findEntry(entryName);
  if (found.isError())
    return runtimeError(found.message());
  const EntryDesc &entry = *found.value();
  std::optional<std::string> misuse =
      entry.train ? checkTrainOptions(opts, module, entry)
                  : checkForwardOptions(opts, entry);
  if (misuse)
    return usageError(*misuse);
  for (const std::string &probe : opts.probes) {
    const auto &probes = entry.probes;
    if (std::none_of(
            probes.begin(), probes.end(),
            [&](const TensorSlotDesc &p) { return p.name == probe; })) {
      std::string list;
      for (const TensorSlotDesc &p : probes)
        list += (list.empty() ? "'" : ", '") + p.name + "'";
      return runtimeError("entry '" + entryName + "' has no probe '" + probe +
                          "'; its probes: " + (list.empty() ? "none" : list));
    }
  }

  for (const NamedPath &p : opts.params) {
    Result<HostTensor> value = readNpyFile(p.path);
    if (value.isError())
      return runtimeError(value.message());
    if (Status s = module.setParam(p.name, value.value()); s.isError())
      return runtimeError(s.message());
  }
  std::vector<NamedTensor> inputs;
  for (const NamedPath &p : opts.inputs) {
    Result<HostTensor> value = readNpyFile(p.path);
    if (value.isError())
      return runtimeError(value.message());
    inputs.push_back({p.name, std::move(value).value()});
  }
  if (entry.train)
    return runTrainSteps(opts, module, entry, inputs);
  return replayForward(opts, module, entryName, inputs);
}

int run(const Options &opts) {
  uint64_t validationMessages = 0;
  int rc = replay(opts, validationMessages);
  // With validation on, any message fails the run, so that tests can rely on
  // the exit code alone.
  if (rc == 0 && validationMessages > 0)
    return runtimeError(std::to_string(validationMessages) +
                        " Vulkan validation message(s), printed above");
  return rc;
}

} // namespace

int usageError(const std::string &message) {
  std::fprintf(stderr, "capture-run: error: %s\n%s", message.c_str(), kUsage);
  return 2;
}

int runtimeError(const std::string &message) {
  std::fprintf(stderr, "capture-run: error: %s\n", message.c_str());
  return 1;
}

void printTensor(const char *kind, const std::string &name,
                 const HostTensor &t) {
  std::printf("%s %s %s:", kind, name.c_str(), formatShape(t.shape).c_str());
  size_t n = t.numElements(), shown = std::min<size_t>(n, 8);
  for (size_t i = 0; i < shown; ++i) {
    if (t.dtype == DType::F32) {
      float v;
      std::memcpy(&v, t.data.data() + 4 * i, 4);
      std::printf(" %g", static_cast<double>(v));
    } else {
      int32_t v;
      std::memcpy(&v, t.data.data() + 4 * i, 4);
      std::printf(" %d", v);
    }
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

int report(const Options &opts, Module &module, const std::string &entryName,
           const std::vector<NamedTensor> &outputs) {
  if (!opts.outputDir.empty())
    if (Status s = makeDirectory(opts.outputDir, "--output-dir"); s.isError())
      return runtimeError(s.message());
  for (const NamedTensor &out : outputs) {
    printTensor("output", out.name, out.tensor);
    if (!opts.outputDir.empty())
      if (Status s =
              writeTensor(opts.outputDir, out.name, out.tensor, "--output-dir");
          s.isError())
        return runtimeError(s.message());
  }
  for (const std::string &name : opts.probes) {
    Result<HostTensor> probe = module.readProbe(entryName, name);
    if (probe.isError())
      return runtimeError(probe.message());
    printTensor("probe", name, probe.value());
    if (!opts.outputDir.empty())
      if (Status s =
              writeTensor(opts.outputDir, name, probe.value(), "--output-dir");
          s.isError())
        return runtimeError(s.message());
  }
  if (!opts.saveParams.empty())
    if (Status s = writeWeights(module, opts.saveParams, "--save-params");
        s.isError())
      return runtimeError(s.message());
  std::printf("command buffers recorded: %llu\n",
              static_cast<unsigned long long>(module.recordCount()));
  return 0;
}

} // namespace capture::run

int main(int argc, char **argv) {
  using namespace capture::run;
  Options opts;
  bool help = false;
  if (std::optional<std::string> error = parseArgs(argc, argv, opts, help))
    return usageError(*error);
  if (help) {
    std::printf("%s", kUsage);
    return 0;
  }
#if defined(__cpp_exceptions)
  try {
    return run(opts);
  } catch (const std::exception &e) {
    return runtimeError(std::string("internal error: ") + e.what());
  }
#else
  return run(opts);
#endif
}
