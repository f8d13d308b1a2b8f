//===- capture-run.cpp - Replays an entry of a .capmod module -------------===//
//
// capture-run FILE.capmod --entry NAME [--input name=file.npy]...
//     [--param name=file.npy]... [--output-dir DIR] [--repeat N]
//     [--device SEL] [--probe NAME]...
//
// Prints the device, each output and probe (first 8 values), and the host
// wall-clock time per replay call. Errors: "capture-run: error: ..." on
// stderr and exit code 1; bad usage: the usage text and exit code 2.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/device.h"
#include "capture/rt/module.h"
#include "capture/rt/npy.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

using namespace capture::rt;

namespace {

constexpr const char *kUsage =
    "usage: capture-run FILE.capmod [--entry NAME] [--input name=file.npy]...\n"
    "                   [--param name=file.npy]... [--output-dir DIR]\n"
    "                   [--repeat N] [--device SEL] [--probe NAME]...\n"
    "\n"
    "Replays entry NAME of a Capture module N times (default 1) and prints\n"
    "its outputs. --entry may be omitted when the module has one entry.\n"
    "  --input name=file.npy  value of input `name` (every input, once)\n"
    "  --param name=file.npy  replaces weight `name` before the replays\n"
    "  --output-dir DIR       writes DIR/<output>.npy and DIR/<probe>.npy\n"
    "  --repeat N             number of replays (>= 1)\n"
    "  --device SEL           device index, 'cpu', 'gpu' or part of a name\n"
    "                         (default: env CAPTURE_DEVICE, else a GPU, else\n"
    "                         lavapipe)\n"
    "  --probe NAME           reads probe NAME after the last replay\n"
    "Env: CAPTURE_VALIDATION=1 enables the Vulkan validation layers (any\n"
    "message then fails the run); CAPTURE_DEVICE selects the device.\n";

/// A NAME=PATH argument.
struct NamedPath {
  std::string name; // tensor name
  std::string path; // .npy file
};

/// Parsed command line.
struct Options {
  std::string module;              // FILE.capmod
  std::string entry;               // --entry, may be empty
  std::vector<NamedPath> inputs;   // --input
  std::vector<NamedPath> params;   // --param
  std::string outputDir;           // --output-dir, may be empty
  uint64_t repeat = 1;             // --repeat
  std::string device;              // --device, may be empty
  std::vector<std::string> probes; // --probe
};

int usageError(const std::string &message) {
  std::fprintf(stderr, "capture-run: error: %s\n%s", message.c_str(), kUsage);
  return 2;
}

int runtimeError(const std::string &message) {
  std::fprintf(stderr, "capture-run: error: %s\n", message.c_str());
  return 1;
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
    static const char *known[] = {"--entry",      "--input",  "--param",
                                  "--output-dir", "--repeat", "--device",
                                  "--probe"};
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
    } else if (flag == "--repeat") {
      char *end = nullptr;
      errno = 0;
      unsigned long long n = std::strtoull(value.c_str(), &end, 10);
      if (errno || *end || value[0] == '-' || n < 1 || n > 1000000000ull)
        return "option --repeat expects a count from 1 to 1000000000, got '" +
               value + "'";
      opts.repeat = n;
    }
  }
  if (opts.module.empty())
    return std::string("no module file given");
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
  return std::nullopt;
}

/// "output y [2, 4]: 1 2 3 ..." with at most 8 values.
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

/// Writes DIR/<name>.npy, refusing names that would leave DIR.
Status writeResult(const std::string &dir, const std::string &name,
                   const HostTensor &t) {
  if (name.empty() || name == "." || name == ".." ||
      name.find('/') != std::string::npos ||
      name.find('\\') != std::string::npos)
    return Status::error("cannot write tensor '" + name +
                         "' to --output-dir: its name is not a file name");
  return writeNpyFile(dir + "/" + name + ".npy", t);
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
  Result<const EntryDesc *> entry = module.findEntry(entryName);
  if (entry.isError())
    return runtimeError(entry.message());
  for (const std::string &probe : opts.probes) {
    const auto &probes = entry.value()->probes;
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

  std::vector<NamedTensor> outputs;
  double totalUs = 0, minUs = 0;
  for (uint64_t i = 0; i < opts.repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    Result<std::vector<NamedTensor>> result = module.run(entryName, inputs);
    auto end = std::chrono::steady_clock::now();
    if (result.isError())
      return runtimeError(result.message());
    double us = std::chrono::duration<double, std::micro>(end - start).count();
    totalUs += us;
    minUs = i == 0 ? us : std::min(minUs, us);
    if (i + 1 == opts.repeat)
      outputs = std::move(result).value();
  }

  if (!opts.outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opts.outputDir, ec);
    if (ec)
      return runtimeError("cannot create output directory '" + opts.outputDir +
                          "': " + ec.message());
  }
  for (const NamedTensor &out : outputs) {
    printTensor("output", out.name, out.tensor);
    if (!opts.outputDir.empty())
      if (Status s = writeResult(opts.outputDir, out.name, out.tensor);
          s.isError())
        return runtimeError(s.message());
  }
  for (const std::string &name : opts.probes) {
    Result<HostTensor> probe = module.readProbe(entryName, name);
    if (probe.isError())
      return runtimeError(probe.message());
    printTensor("probe", name, probe.value());
    if (!opts.outputDir.empty())
      if (Status s = writeResult(opts.outputDir, name, probe.value());
          s.isError())
        return runtimeError(s.message());
  }
  std::printf("replay: %llu calls, %.1f us/call (min %.1f us)\n",
              static_cast<unsigned long long>(opts.repeat),
              totalUs / static_cast<double>(opts.repeat), minUs);
  return 0;
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

int main(int argc, char **argv) {
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
