//===- options.cpp - capture-run's command line ---------------------------===//
//
// Parsing and the checks that need no module: unknown options, missing
// values, files that do not exist, counts and step numbers. What depends
// on the entry (its kind, its inputs) is checked once the module is loaded.
//
//===----------------------------------------------------------------------===//

#include "cli.h"

#include "capture/rt/suggest.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

using namespace capture::rt;

namespace capture::run {
namespace {

constexpr const char *kUsage =
    "usage: capture-run FILE.capmod [--entry NAME] [--input name=file.npy]...\n"
    "                   [--param name=file.npy]... [--params-dir DIR]\n"
    "                   [--output-dir DIR]\n"
    "                   [--device SEL] [--cpu-threads N|auto]\n"
    "                   [--wait auto|block|spin] [--probe NAME]...\n"
    "                   [--save-params DIR] [--eager] [--profile] [--json]\n"
    "                   [--repeat N]                            (forward)\n"
    "                   [--steps N] [--keep-going] [--lr-at K=VALUE[@G]]...\n"
    "                   [--max-grad-norm-at K=VALUE]...\n"
    "                   [--input-at K:NAME=FILE.npy]... [--dump-state DIR]\n"
    "                   [--load-state DIR] [--inputs-dir DIR] [--print "
    "NAME]...\n"
    "                                                           (training)\n"
    "       capture-run FILE.capmod --info [--json] [--graph] [--entry NAME]\n"
    "\n"
    "Replays entry NAME of a Capture module and prints its outputs. --entry\n"
    "may be omitted when the module has one entry.\n"
    "  --input name=file.npy  value of input `name` (every input, once; not\n"
    "                         the hyperparameter inputs of a training entry)\n"
    "  --param name=file.npy  replaces weight `name` before the first replay\n"
    "  --output-dir DIR       writes DIR/<output>.npy (last replay) and\n"
    "                         DIR/<probe>.npy\n"
    "  --device SEL           device index, 'cpu' (lavapipe), 'gpu', 'vulkan'\n"
    "                         (a GPU, else lavapipe), part of a name, or\n"
    "                         'host' (native code of a module compiled\n"
    "                         --target=cpu, no Vulkan); default: env\n"
    "                         CAPTURE_DEVICE, else a GPU, else the host\n"
    "                         device when the module has host code, else\n"
    "                         lavapipe (the first line says why)\n"
    "  --cpu-threads N|auto   lavapipe's thread pool size (0: every dispatch\n"
    "                         runs on the submitting thread, fastest for "
    "small\n"
    "                         dispatches); auto (the default): 0, or "
    "llvmpipe's\n"
    "                         pool when the module's dispatches average 1M\n"
    "                         work or more; env LP_NUM_THREADS wins\n"
    "  --wait auto|block|spin how the host waits for each replay: block\n"
    "                         sleeps until the driver wakes it; spin sleeps\n"
    "                         until shortly before the end recent replays\n"
    "                         predict, then polls (one more busy CPU); auto\n"
    "                         (the default): spin on lavapipe without its\n"
    "                         pool when 2 CPUs are allowed, else block\n"
    "  --probe NAME           reads probe NAME after the last replay\n"
    "  --save-params DIR      writes DIR/<weight>.npy for every weight at the\n"
    "                         end\n"
    "  --eager                runs every dispatch as its own submission\n"
    "                         (record, submit, wait): the baseline of a "
    "replay\n"
    "  --profile              prints host stages and per-kernel device time\n"
    "                         (timestamp queries), summed over the calls\n"
    "  --json                 prints one JSON object instead of text\n"
    "  --repeat N             forward entry: number of replays (default 1)\n"
    "  --steps N              training entry: number of steps (default 1);\n"
    "                         prints 'step K: loss=L grad_norm=G' per step, "
    "or\n"
    "                         'step K: update not applied: ...' when the\n"
    "                         gradient norm is not finite, which stops the\n"
    "                         run with exit code 1\n"
    "  --keep-going           runs the remaining steps after a refused one\n"
    "                         (the exit code is still 1)\n"
    "  --lr-at K=VALUE[@G]    learning rate from step K on (K in 1..N), of\n"
    "                         param group G (needed when there are several)\n"
    "  --max-grad-norm-at K=VALUE\n"
    "                         gradient clipping limit from step K on\n"
    "  --input-at K:NAME=FILE.npy\n"
    "                         input NAME for step K only\n"
    "  --dump-state DIR       after every step K writes DIR/step-K/: each\n"
    "                         weight as <name>.npy, adam.m.npy, adam.v.npy\n"
    "                         (flat moments) and t.txt (the step counter)\n"
    "  --load-state DIR       before the first step reads what --dump-state\n"
    "                         wrote into DIR (a DIR/step-K): the weights, "
    "both\n"
    "                         moments and t, so that the run resumes bitwise;\n"
    "                         its steps count from 1 again\n"
    "  --params-dir DIR       every weight from DIR/<weight>.npy (what\n"
    "                         --save-params writes)\n"
    "  --inputs-dir DIR       a new batch each step: DIR/step-K/<input>.npy\n"
    "                         replaces those inputs at step K (DIR/step-K\n"
    "                         must exist for every step)\n"
    "  --print NAME           prints scalar output NAME on every step line\n"
    "  --info                 describes the module (kernels, dispatches,\n"
    "                         barriers, buffer bytes) without a device\n"
    "  --graph                prints the dispatches of entry NAME (every\n"
    "                         entry without --entry) with their bindings\n"
    "A run longer than a second shows its progress on stderr when stderr is\n"
    "a terminal.\n"
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

/// Parses the thread count of --cpu-threads: 0 to 1024.
std::optional<std::string>
parseThreads(const std::string &value, std::optional<int> &out, bool &autoOut) {
  autoOut = value == "auto";
  if (autoOut) {
    out.reset();
    return std::nullopt;
  }
  char *end = nullptr;
  errno = 0;
  long n = std::strtol(value.c_str(), &end, 10);
  if (errno || *end || !std::isdigit(static_cast<unsigned char>(value[0])) ||
      n > 1024)
    return "option --cpu-threads expects 'auto' or a thread count from 0 to "
           "1024 (0: every dispatch runs on the submitting thread), got '" +
           value + "'";
  out = static_cast<int>(n);
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

/// Parses K=VALUE of `option` (--lr-at, --max-grad-norm-at), and for
/// --lr-at K=VALUE@G, the param group G.
std::optional<std::string> parseStepValue(const std::string &option,
                                          const std::string &value,
                                          std::vector<StepValue> &out) {
  bool grouped = option == "--lr-at";
  std::string bad =
      "option " + option + " expects K=VALUE" +
      (grouped ? " or K=VALUE@G" : "") + " with a step number K" +
      (grouped ? ", a number VALUE and a param group G" + std::string()
               : " and a number VALUE") +
      ", got '" + value + "'";
  size_t eq = value.find('=');
  if (eq == std::string::npos)
    return bad;
  StepValue sv;
  sv.text = value;
  std::string number = value.substr(eq + 1);
  if (size_t at = number.find('@'); grouped && at != std::string::npos) {
    uint64_t group = 0;
    if (!parseStep(number.substr(at + 1), group))
      return bad;
    sv.group = group;
    number.resize(at);
  }
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

/// --info and --graph run nothing: options about running are usage errors
/// with them.
std::optional<std::string> checkInspectOptions(const Options &opts) {
  const char *mode = opts.info ? "--info" : "--graph";
  const std::pair<bool, const char *> runOnly[] = {
      {!opts.inputs.empty(), "--input"},
      {!opts.params.empty(), "--param"},
      {!opts.outputDir.empty(), "--output-dir"},
      {!opts.device.empty(), "--device"},
      {opts.cpuThreadsGiven, "--cpu-threads"},
      {opts.wait.has_value(), "--wait"},
      {!opts.probes.empty(), "--probe"},
      {!opts.saveParams.empty(), "--save-params"},
      {opts.repeat.has_value(), "--repeat"},
      {opts.steps.has_value(), "--steps"},
      {opts.keepGoing, "--keep-going"},
      {!opts.lrAt.empty(), "--lr-at"},
      {!opts.maxGradNormAt.empty(), "--max-grad-norm-at"},
      {!opts.inputAt.empty(), "--input-at"},
      {!opts.dumpState.empty(), "--dump-state"},
      {!opts.loadState.empty(), "--load-state"},
      {!opts.paramsDir.empty(), "--params-dir"},
      {!opts.inputsDir.empty(), "--inputs-dir"},
      {!opts.printOutputs.empty(), "--print"},
      {opts.eager, "--eager"},
      {opts.profile, "--profile"}};
  for (auto [given, option] : runOnly)
    if (given)
      return "option " + std::string(option) + " runs the module; " + mode +
             " only describes it (expected no run options with " + mode + ")";
  if (opts.graph && opts.json)
    return std::string("option --graph prints text; expected it without "
                       "--json (--info --json describes the module as JSON)");
  return std::nullopt;
}

} // namespace

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
    const std::pair<const char *, bool *> switches[] = {
        {"--keep-going", &opts.keepGoing},
        {"--eager", &opts.eager},
        {"--profile", &opts.profile},
        {"--json", &opts.json},
        {"--info", &opts.info},
        {"--graph", &opts.graph}};
    auto sw = std::find_if(std::begin(switches), std::end(switches),
                           [&](const auto &s) { return flag == s.first; });
    if (sw != std::end(switches)) {
      if (hasValue)
        return "option " + flag + " takes no value";
      *sw->second = true;
      continue;
    }
    static const char *known[] = {
        "--entry",       "--input",       "--param",
        "--output-dir",  "--repeat",      "--device",
        "--probe",       "--steps",       "--lr-at",
        "--input-at",    "--save-params", "--dump-state",
        "--load-state",  "--params-dir",  "--max-grad-norm-at",
        "--cpu-threads", "--inputs-dir",  "--print",
        "--wait"};
    if (std::find_if(std::begin(known), std::end(known), [&](const char *k) {
          return flag == k;
        }) == std::end(known)) {
      std::vector<std::string_view> all(std::begin(known), std::end(known));
      for (const auto &s : switches)
        all.push_back(s.first);
      return "unknown option '" + flag + "'" +
             capture::rt::suggestName(flag, all);
    }
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
    } else if (flag == "--load-state") {
      opts.loadState = value;
    } else if (flag == "--params-dir") {
      opts.paramsDir = value;
    } else if (flag == "--inputs-dir") {
      opts.inputsDir = value;
    } else if (flag == "--print") {
      opts.printOutputs.push_back(value);
    } else if (flag == "--cpu-threads") {
      error = parseThreads(value, opts.cpuThreads, opts.cpuThreadsAuto);
      opts.cpuThreadsGiven = true;
    } else if (flag == "--wait") {
      Result<WaitPolicy> policy = parseWaitPolicy(value, "option --wait");
      if (policy.isError())
        return policy.message();
      opts.wait = policy.value();
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
  if (opts.info || opts.graph)
    if (std::optional<std::string> error = checkInspectOptions(opts))
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
      {!opts.dumpState.empty(), "--dump-state"},
      {!opts.loadState.empty(), "--load-state"},
      {!opts.inputsDir.empty(), "--inputs-dir"},
      {!opts.printOutputs.empty(), "--print"}};
  for (auto [given, option] : trainOnly)
    if (given)
      return "option " + std::string(option) +
             " is only valid for a Train entry" + kind;
  return std::nullopt;
}

int usageError(const std::string &message) {
  // One line the user can act on, not the whole usage text after it.
  std::fprintf(stderr,
               "capture-run: error: %s\n"
               "capture-run: see 'capture-run --help' for the options\n",
               message.c_str());
  return 2;
}

void printUsage() { std::printf("%s", kUsage); }

} // namespace capture::run
