//===- train_steps.cpp - capture-run's steps of a training entry ----------===//
//
// Every option is checked against the entry before the first step, so that
// a typo in --lr-at 30=... fails at once rather than after 29 steps. A step
// the runtime refuses (non-finite gradient norm, index out of range) is told
// apart from other errors by its status code (StatusCode::UpdateRefused).
//
//===----------------------------------------------------------------------===//

#include "cli.h"
#include "progress.h"

#include "capture/rt/capmod.h"
#include "capture/rt/npy.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace capture::rt;

namespace capture::run {
namespace {

/// The first f32 of `t` (a scalar output), widened for printing.
double scalarOf(const HostTensor &t) {
  std::vector<float> v = t.asF32();
  return v.empty() ? 0.0 : static_cast<double>(v[0]);
}

/// Writes DIR/step-K/: every weight, the flat moments and the step counter.
Status dumpState(Module &module, const EntryDesc &entry, const std::string &dir,
                 uint64_t step) {
  std::string stepDir = dir + "/step-" + std::to_string(step);
  CAPTURE_RT_RETURN_IF_ERROR(writeWeights(module, stepDir, "--dump-state"));
  Result<AdamWMoments> moments = module.readMoments(entry.name);
  if (moments.isError())
    return moments.status();
  CAPTURE_RT_RETURN_IF_ERROR(
      writeNpyFile(stepDir + "/adam.m.npy", moments.value().m));
  CAPTURE_RT_RETURN_IF_ERROR(
      writeNpyFile(stepDir + "/adam.v.npy", moments.value().v));
  Result<TrainState> state = module.trainState(entry.name);
  if (state.isError())
    return state.status();
  std::string path = stepDir + "/t.txt";
  std::ofstream out(path, std::ios::trunc);
  out << state.value().step << "\n";
  out.close();
  if (!out)
    return Status::error("cannot write '" + path + "' (--dump-state)");
  return Status::ok();
}

/// Reads DIR (a DIR/step-K of --dump-state) back: every weight, both
/// moments and t. Every file is read and checked before anything changes
/// on the device, so a bad directory leaves the module as it was.
Status loadState(Module &module, const EntryDesc &entry,
                 const std::string &dir) {
  std::string where = "--load-state '" + dir + "': ";
  AdamWMoments moments;
  for (auto [name, slot] :
       {std::pair<const char *, HostTensor *>{"adam.m.npy", &moments.m},
        {"adam.v.npy", &moments.v}}) {
    Result<HostTensor> value = readNpyFile(dir + "/" + name);
    if (value.isError())
      return value.status().withContext(where.substr(0, where.size() - 2));
    *slot = std::move(value).value();
  }
  std::string path = dir + "/t.txt", text;
  std::ifstream in(path);
  if (!(in >> text))
    return Status::error(where + "cannot read '" + path +
                         "' (the step "
                         "counter --dump-state writes)");
  char *end = nullptr;
  errno = 0;
  unsigned long long t = std::strtoull(text.c_str(), &end, 10);
  std::string rest;
  if (text.empty() || *end != '\0' || errno == ERANGE || text[0] == '-' ||
      (in >> rest))
    return Status::error(where + "'" + path +
                         "' must hold the step counter as one whole "
                         "number, got '" +
                         text + (rest.empty() ? "" : " " + rest) + "'");
  // The moments' shape is checked before the weights are replaced.
  Result<AdamWMoments> current = module.readMoments(entry.name);
  if (current.isError())
    return current.status();
  for (const HostTensor *m : {&moments.m, &moments.v})
    if (m->shape != current.value().m.shape || m->dtype != DType::F32)
      return Status::error(
          where + "the moments are " + formatType(m->shape, m->dtype) +
          ", expected " + formatType(current.value().m.shape, DType::F32) +
          " (entry '" + entry.name + "'): a state of another module?");
  CAPTURE_RT_RETURN_IF_ERROR(readWeights(module, dir, "--load-state"));
  CAPTURE_RT_RETURN_IF_ERROR(module.writeMoments(entry.name, moments));
  return module.setTrainStep(entry.name, t);
}

/// Applies the --lr-at and --max-grad-norm-at values of step `step`.
Status applyHyperparameters(const Options &opts, Module &module,
                            const std::string &entry, uint64_t step) {
  for (const StepValue &sv : opts.lrAt)
    if (sv.step == step)
      CAPTURE_RT_RETURN_IF_ERROR(
          module.setLearningRate(entry, sv.group.value_or(0), sv.value));
  for (const StepValue &sv : opts.maxGradNormAt)
    if (sv.step == step)
      CAPTURE_RT_RETURN_IF_ERROR(module.setMaxGradNorm(entry, sv.value));
  return Status::ok();
}

} // namespace

std::optional<std::string>
checkTrainOptions(const Options &opts, Module &module, const EntryDesc &entry) {
  std::string kind = "; entry '" + entry.name + "' is a Train entry";
  if (opts.repeat)
    return "option --repeat is only valid for a Forward entry" + kind +
           " (use --steps)";
  if (!opts.loadState.empty() &&
      (!opts.params.empty() || !opts.paramsDir.empty()))
    return std::string("options --load-state and ") +
           (opts.params.empty() ? "--params-dir" : "--param") +
           " both set the weights; expected one of them (a state directory "
           "holds every weight)";
  const TrainDesc &train = *entry.train;
  Result<TrainState> state = module.trainState(entry.name);
  if (state.isError())
    return state.message();
  size_t groups = train.groups.size() + 1;
  for (const StepValue &sv : opts.lrAt) {
    // One value for every group would silently undo their differences.
    if (!sv.group && groups > 1)
      return "option --lr-at '" + sv.text + "': entry '" + entry.name +
             "' has " + std::to_string(groups) +
             " param groups, each with its own learning rate; expected the "
             "group: --lr-at " +
             sv.text + "@G with G in 0.." + std::to_string(groups - 1);
    if (sv.group && *sv.group >= groups)
      return "option --lr-at '" + sv.text + "': entry '" + entry.name +
             "' has " + std::to_string(groups) + " param group" +
             (groups > 1 ? "s" : "") + ", expected G in 0.." +
             std::to_string(groups - 1);
    AdamWDesc adamw = state.value().adamw;
    adamw.lr = sv.value;
    if (Status s = checkAdamW(adamw); s.isError())
      return "option --lr-at '" + sv.text + "': " + s.message();
  }
  for (const StepValue &sv : opts.maxGradNormAt) {
    if (!train.maxGradNorm)
      return "option --max-grad-norm-at '" + sv.text + "': entry '" +
             entry.name +
             "' does not clip gradients (it was compiled without "
             "max_grad_norm)";
    if (Status s = checkMaxGradNorm(sv.value); s.isError())
      return "option --max-grad-norm-at '" + sv.text + "': " + s.message();
  }
  // The runtime refuses values for the inputs it fills; say which option
  // sets them instead.
  auto runtimeFilled =
      [&](const std::string &name) -> std::optional<std::string> {
    if (name == train.hyperInput)
      return "input '" + name +
             "' is filled by the runtime (AdamW hyperparameters); use --lr-at";
    if (!train.maxGradNormInput.empty() && name == train.maxGradNormInput)
      return "input '" + name +
             "' is filled by the runtime (the gradient clipping limit); use "
             "--max-grad-norm-at";
    return std::nullopt;
  };
  for (const NamedPath &np : opts.inputs)
    if (std::optional<std::string> e = runtimeFilled(np.name))
      return "option --input '" + np.name + "=" + np.path + "': " + *e;
  for (const StepInput &si : opts.inputAt) {
    const std::string &name = si.input.name;
    std::string where = "option --input-at '" + si.text + "': ";
    if (std::optional<std::string> e = runtimeFilled(name))
      return where + *e;
    std::string list;
    bool found = false;
    for (const TensorSlotDesc &slot : entry.inputs) {
      if (runtimeFilled(slot.name))
        continue;
      found |= slot.name == name;
      list += (list.empty() ? "'" : ", '") + slot.name + "'";
    }
    if (!found)
      return where + "entry '" + entry.name + "' has no input '" + name +
             "'; its inputs: " + (list.empty() ? "none" : list);
  }
  for (const std::string &name : opts.printOutputs) {
    auto it =
        std::find_if(entry.outputs.begin(), entry.outputs.end(),
                     [&](const TensorSlotDesc &o) { return o.name == name; });
    if (it == entry.outputs.end()) {
      std::string list;
      for (const TensorSlotDesc &o : entry.outputs)
        list += (list.empty() ? "'" : ", '") + o.name + "'";
      return "option --print '" + name + "': entry '" + entry.name +
             "' has no output '" + name + "'; its outputs: " + list;
    }
    if (elementCount(it->shape).value_or(0) != 1)
      return "option --print '" + name + "': output '" + name + "' is " +
             formatType(it->shape, it->dtype) +
             ", expected a scalar (write tensors with --output-dir)";
  }
  if (!opts.inputsDir.empty())
    for (uint64_t k = 1; k <= opts.steps.value_or(1); ++k) {
      std::string dir = opts.inputsDir + "/step-" + std::to_string(k);
      std::error_code ec;
      if (!std::filesystem::is_directory(dir, ec))
        return "option --inputs-dir '" + opts.inputsDir + "': no directory '" +
               dir + "'; expected one per step, step-1 to step-" +
               std::to_string(opts.steps.value_or(1));
      for (const auto &file : std::filesystem::directory_iterator(dir, ec)) {
        std::string stem = file.path().stem().string();
        bool known = std::any_of(
            entry.inputs.begin(), entry.inputs.end(),
            [&](const TensorSlotDesc &i) { return i.name == stem; });
        if (file.path().extension() != ".npy" || !known || runtimeFilled(stem))
          return "option --inputs-dir: '" + file.path().string() +
                 "' is not <input>.npy for an input of entry '" + entry.name +
                 "' that the caller gives";
      }
    }
  return std::nullopt;
}

/// The inputs of step `step` from --inputs-dir (none without it), sorted
/// by file name.
Result<std::vector<NamedTensor>> stepInputsFromDir(const Options &opts,
                                                   uint64_t step) {
  std::vector<NamedTensor> out;
  if (opts.inputsDir.empty())
    return out;
  std::string dir = opts.inputsDir + "/step-" + std::to_string(step);
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto &file : std::filesystem::directory_iterator(dir, ec))
    files.push_back(file.path());
  if (ec)
    return Status::error("--inputs-dir: cannot list '" + dir +
                         "': " + ec.message());
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path &p : files) {
    Result<HostTensor> value = readNpyFile(p.string());
    if (value.isError())
      return value.status();
    out.push_back({p.stem().string(), std::move(value).value()});
  }
  return out;
}

int runTrainSteps(const Options &opts, Module &module, const EntryDesc &entry,
                  const std::vector<NamedTensor> &inputs) {
  // Read every replacement before the first step: a bad file must not
  // leave a half-finished run behind.
  std::vector<NamedTensor> replacements;
  for (const StepInput &si : opts.inputAt) {
    Result<HostTensor> value = readNpyFile(si.input.path);
    if (value.isError())
      return runtimeError(value.message());
    replacements.push_back({si.input.name, std::move(value).value()});
  }
  if (!opts.loadState.empty())
    if (Status s = loadState(module, entry, opts.loadState); s.isError())
      return runtimeError(s.message());
  const std::string &gradNorm = entry.train->gradNormOutput;
  uint64_t steps = opts.steps.value_or(1);
  std::vector<uint64_t> refused;
  std::vector<NamedTensor> outputs;
  RunRecord record;
  if (opts.profile)
    record.profile.emplace();
  Profile profile;
  RunOptions runOptions;
  runOptions.eager = opts.eager;
  runOptions.profile = opts.profile ? &profile : nullptr;
  // Every step reads the probes with its outputs: the run may stop early.
  runOptions.probes = opts.probes;
  std::vector<NamedTensor> probes;
  Progress progress(opts.eager ? "eager step" : "step", steps);
  // Every early return erases the progress line before the error.
  auto fail = [&](const std::string &message) {
    progress.clear();
    return runtimeError(message);
  };
  for (uint64_t step = 1; step <= steps; ++step) {
    if (Status s = applyHyperparameters(opts, module, entry.name, step);
        s.isError())
      return fail(s.message());
    std::vector<NamedTensor> stepInputs = inputs;
    for (size_t i = 0; i < opts.inputAt.size(); ++i) {
      if (opts.inputAt[i].step != step)
        continue;
      auto it = std::find_if(
          stepInputs.begin(), stepInputs.end(),
          [&](const NamedTensor &t) { return t.name == replacements[i].name; });
      if (it == stepInputs.end())
        stepInputs.push_back(replacements[i]);
      else
        *it = replacements[i];
    }
    Result<std::vector<NamedTensor>> batch = stepInputsFromDir(opts, step);
    if (batch.isError())
      return fail(batch.message());
    for (NamedTensor &t : batch.value()) {
      auto it =
          std::find_if(stepInputs.begin(), stepInputs.end(),
                       [&](const NamedTensor &x) { return x.name == t.name; });
      if (it == stepInputs.end())
        stepInputs.push_back(std::move(t));
      else
        *it = std::move(t);
    }

    auto start = std::chrono::steady_clock::now();
    Result<RunResult> result =
        module.runFull(entry.name, stepInputs, runOptions);
    auto end = std::chrono::steady_clock::now();
    double us = std::chrono::duration<double, std::micro>(end - start).count();

    StepRecord line;
    line.step = step;
    if (result.isOk()) {
      outputs = std::move(result->outputs);
      probes = std::move(result->probes);
      line.applied = true;
      line.loss = scalarOf(outputs.front().tensor);
      for (const NamedTensor &t : outputs)
        if (t.name == gradNorm)
          line.gradNorm = scalarOf(t.tensor);
      for (const std::string &name : opts.printOutputs)
        for (const NamedTensor &t : outputs)
          if (t.name == name)
            line.printed.push_back({name, scalarOf(t.tensor)});
    } else {
      if (result.status().code() != StatusCode::UpdateRefused)
        return fail(result.message());
      line.refusal = result.message();
      refused.push_back(step);
      // A refused step returns no RunResult; its probes are still on the
      // device (the submission ran).
      probes.clear();
      for (const std::string &name : opts.probes) {
        Result<HostTensor> p = module.readProbe(entry.name, name);
        if (p.isError())
          return fail(p.message());
        probes.push_back({name, std::move(p).value()});
      }
    }
    // A refused step ran on the device: it counts in the timing and the
    // profile as the applied ones do.
    record.addCall(us);
    if (record.profile)
      addProfile(*record.profile, profile);
    if (!opts.json) {
      progress.clear();
      if (line.applied) {
        std::printf("step %llu: loss=%.9g grad_norm=%.9g",
                    static_cast<unsigned long long>(step), line.loss,
                    line.gradNorm);
        for (const auto &[name, value] : line.printed)
          std::printf(" %s=%.9g", name.c_str(), value);
        std::printf("\n");
      } else
        std::printf("step %llu: update not applied: %s\n",
                    static_cast<unsigned long long>(step),
                    line.refusal.c_str());
      std::fflush(stdout);
    }
    record.steps.push_back(std::move(line));
    if (!opts.dumpState.empty())
      if (Status s = dumpState(module, entry, opts.dumpState, step);
          s.isError())
        return fail(s.message());
    progress.update(step);
    if (!refused.empty() && !opts.keepGoing)
      break;
  }
  progress.clear();

  if (int rc = report(opts, module, entry.name, outputs, probes, record))
    return rc;
  uint64_t ran = record.calls;
  if (refused.empty())
    return 0;
  std::string list;
  for (uint64_t step : refused)
    list += (list.empty() ? "" : ", ") + std::to_string(step);
  return runtimeError(
      std::to_string(refused.size()) + " of " + std::to_string(ran) +
      " step(s) not applied (refused: a non-finite gradient norm or an index "
      "out of range): step " +
      list +
      (opts.keepGoing ? "" : "; stopped at the first (see --keep-going)"));
}

} // namespace capture::run
