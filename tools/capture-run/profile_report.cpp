//===- profile_report.cpp - capture-run --profile: the table and JSON -----===//
//
// A run profiles every call; the report sums them: per kernel the
// dispatches and device time over all calls and the median of its time per
// call, and the host stages and the submission's device time per call.
//
//===----------------------------------------------------------------------===//

#include "cli.h"

#include <algorithm>
#include <cstdio>

using namespace capture::rt;

namespace capture::run {
namespace {

/// The host stages in print order, with their names.
const std::pair<const char *, double HostStages::*> kStages[] = {
    {"pack", &HostStages::packUs},
    {"record", &HostStages::recordUs},
    {"submit", &HostStages::submitUs},
    {"wait", &HostStages::waitUs},
    {"unpack", &HostStages::unpackUs}};

/// Device time of every kernel, summed.
double kernelTotalUs(const Profile &p) {
  double total = 0;
  for (const KernelProfile &k : p.kernels)
    total += k.deviceUs;
  return total;
}

/// The median over the calls of one kernel's device time per call.
double medianPerCall(const ProfileTotals &totals, uint32_t kernel) {
  auto it = totals.kernelCallUs.find(kernel);
  return it == totals.kernelCallUs.end() ? 0.0 : quantile(it->second, 0.5);
}

} // namespace

void addProfile(ProfileTotals &totals, const Profile &p) {
  Profile &sum = totals.sum;
  for (const auto &stage : kStages)
    sum.host.*stage.second += p.host.*stage.second;
  sum.submissionUs += p.submissionUs;
  for (const KernelProfile &k : p.kernels) {
    totals.kernelCallUs[k.kernel].push_back(k.deviceUs);
    auto it = std::find_if(
        sum.kernels.begin(), sum.kernels.end(),
        [&](const KernelProfile &s) { return s.kernel == k.kernel; });
    if (it == sum.kernels.end()) {
      sum.kernels.push_back(k);
      continue;
    }
    it->dispatches += k.dispatches;
    it->deviceUs += k.deviceUs;
  }
  totals.hostOverheadUs.push_back(p.host.packUs + p.host.recordUs +
                                  p.host.submitUs + p.host.unpackUs);
  sum.entry = p.entry;
  sum.eager = p.eager;
  sum.submissions = p.submissions;
  sum.hasDeviceTimes = p.hasDeviceTimes;
  sum.hostClock = p.hostClock;
  sum.noDeviceTimes = p.noDeviceTimes;
  sum.timestampPeriodNs = p.timestampPeriodNs;
  sum.timestampValidBits = p.timestampValidBits;
  ++totals.runs;
}

void printProfile(const ProfileTotals &totals) {
  const Profile &p = totals.sum;
  double runs = static_cast<double>(std::max<uint64_t>(totals.runs, 1));
  std::printf("profile: %llu calls, %s (%llu submission%s per call), ",
              static_cast<unsigned long long>(totals.runs),
              p.eager ? "eager" : "replay",
              static_cast<unsigned long long>(p.submissions),
              p.submissions == 1 ? "" : "s");
  if (p.hostClock)
    std::printf("launches timed on the host's clock (the host device)\n");
  else if (p.hasDeviceTimes)
    std::printf("device timestamps of %g ns/tick, %u valid bits\n",
                p.timestampPeriodNs, p.timestampValidBits);
  else
    std::printf("no device times: %s\n", p.noDeviceTimes.c_str());

  std::vector<KernelProfile> kernels = p.kernels;
  // Most expensive first; without device times, schedule order.
  if (p.hasDeviceTimes)
    std::stable_sort(kernels.begin(), kernels.end(),
                     [](const KernelProfile &a, const KernelProfile &b) {
                       return a.deviceUs > b.deviceUs;
                     });
  int width = 6; // "kernel"
  for (const KernelProfile &k : kernels)
    width = std::max(width, static_cast<int>(k.name.size()));
  double total = kernelTotalUs(p);
  uint64_t dispatches = 0;
  if (p.hasDeviceTimes)
    std::printf("  %-*s  %10s  %14s  %6s  %14s\n", width, "kernel",
                "dispatches", "device us", "share", "median us/call");
  else
    std::printf("  %-*s  %10s\n", width, "kernel", "dispatches");
  for (const KernelProfile &k : kernels) {
    dispatches += k.dispatches;
    if (p.hasDeviceTimes)
      std::printf("  %-*s  %10llu  %14.3f  %5.1f%%  %14.3f\n", width,
                  k.name.c_str(), static_cast<unsigned long long>(k.dispatches),
                  k.deviceUs, total > 0 ? 100.0 * k.deviceUs / total : 0.0,
                  medianPerCall(totals, k.kernel));
    else
      std::printf("  %-*s  %10llu\n", width, k.name.c_str(),
                  static_cast<unsigned long long>(k.dispatches));
  }
  if (p.hasDeviceTimes) {
    std::printf("  %-*s  %10llu  %14.3f  %5.1f%%\n", width, "total",
                static_cast<unsigned long long>(dispatches), total,
                total > 0 ? 100.0 : 0.0);
    if (p.hostClock)
      std::printf("  device us/call: %.3f in kernels (host code; the joins "
                  "between launches included)\n",
                  total / runs);
    else
      std::printf("  device us/call: %.3f in kernels, %.3f for the whole "
                  "submission%s (copies and barriers included)\n",
                  total / runs, p.submissionUs / runs, p.eager ? "s" : "");
  } else {
    std::printf("  %-*s  %10llu\n", width, "total",
                static_cast<unsigned long long>(dispatches));
  }
  std::printf("  host us/call:");
  for (size_t i = 0; i < std::size(kStages); ++i)
    std::printf("%s %s %.1f", i ? "," : "", kStages[i].first,
                p.host.*kStages[i].second / runs);
  std::printf("\n");
  std::printf("  host overhead per call (pack + record + submit + unpack): "
              "median %.1f us (p10 %.1f, p90 %.1f)\n",
              quantile(totals.hostOverheadUs, 0.5),
              quantile(totals.hostOverheadUs, 0.1),
              quantile(totals.hostOverheadUs, 0.9));
}

void writeProfileJson(JsonWriter &json, const ProfileTotals &totals) {
  const Profile &p = totals.sum;
  json.beginObject();
  json.key("calls");
  json.value(totals.runs);
  json.key("mode");
  json.value(p.eager ? "eager" : "replay");
  json.key("submissions_per_call");
  json.value(p.submissions);
  json.key("device_times");
  json.value(p.hasDeviceTimes);
  json.key("host_clock");
  json.value(p.hostClock);
  if (!p.hasDeviceTimes) {
    json.key("no_device_times");
    json.value(p.noDeviceTimes);
  }
  json.key("timestamp_period_ns");
  json.value(p.timestampPeriodNs);
  json.key("timestamp_valid_bits");
  json.value(static_cast<uint64_t>(p.timestampValidBits));
  json.key("submission_device_us");
  json.value(p.submissionUs);
  json.key("kernel_device_us");
  json.value(kernelTotalUs(p));
  json.key("host_us");
  json.beginObject();
  for (const auto &stage : kStages) {
    json.key(stage.first);
    json.value(p.host.*stage.second);
  }
  json.endObject();
  json.key("host_overhead_us");
  json.beginObject();
  for (auto [name, q] : {std::pair<const char *, double>{"median", 0.5},
                         {"p10", 0.1},
                         {"p90", 0.9}}) {
    json.key(name);
    json.value(quantile(totals.hostOverheadUs, q));
  }
  json.endObject();
  json.key("kernels");
  json.beginArray();
  double total = kernelTotalUs(p);
  for (const KernelProfile &k : p.kernels) {
    json.beginObject();
    json.key("median_call_us");
    json.value(medianPerCall(totals, k.kernel));
    json.key("name");
    json.value(k.name);
    json.key("index");
    json.value(static_cast<uint64_t>(k.kernel));
    json.key("dispatches");
    json.value(k.dispatches);
    json.key("device_us");
    json.value(k.deviceUs);
    json.key("share");
    json.value(total > 0 ? k.deviceUs / total : 0.0);
    json.endObject();
  }
  json.endArray();
  json.endObject();
}

} // namespace capture::run
