//===- host_schedule.cpp - An entry's schedule as host calls --------------===//

#include "host_schedule.h"

#include <chrono>

#include <xmmintrin.h>

namespace capture::rt {

Result<HostSchedule>
resolveSchedule(const ModuleDesc &desc, const EntryDesc &entry,
                const std::vector<HostCode::Entry> &entries,
                const std::vector<uint8_t *> &buffers) {
  HostSchedule s;
  for (size_t c = 0; c < entry.commands.size(); ++c) {
    const CommandDesc &command = entry.commands[c];
    if (command.kind != CommandDesc::Kind::Dispatch)
      continue;
    const DispatchDesc &d = command.dispatch;
    if (d.groups[1] != 1 || d.groups[2] != 1)
      return Status::error(
          "entry '" + entry.name + "', command " + std::to_string(c) +
          " (kernel '" + desc.kernels[d.kernel].name +
          "'): the host driver runs 1-D workgroup grids [N, 1, 1], got [" +
          std::to_string(d.groups[0]) + ", " + std::to_string(d.groups[1]) +
          ", " + std::to_string(d.groups[2]) + "]");
    HostLaunch launch;
    launch.entry = entries[d.kernel];
    launch.firstBinding = s.bindings.size();
    launch.groups = d.groups[0];
    launch.parallel = d.work >= kParallelWork && launch.groups > 1;
    for (const BufferRangeDesc &r : d.bindings)
      s.bindings.push_back(buffers[r.buffer] + r.offset);
    s.launches.push_back(launch);
  }
  return s;
}

/// What a part of a parallel launch needs.
struct LaunchPart {
  /// The launch.
  const HostLaunch *launch;
  /// Its binding addresses.
  void *const *bindings;
};

/// Runs workgroups [begin, end) of a launch (a HostPart).
static void runPart(const void *context, int64_t begin, int64_t end) {
  const auto &p = *static_cast<const LaunchPart *>(context);
  for (int64_t g = begin; g < end; ++g)
    p.launch->entry(p.bindings, g, p.launch->groups);
}

void runSchedule(const HostSchedule &schedule, HostPool &pool,
                 std::vector<double> *launchUs) {
  // Denormal gradients and moments slow a long training run down several
  // times (docs/architecture.md); the kernels run with them flushed. The
  // caller's own arithmetic keeps its mode.
  unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | kFlushDenormals);
  for (const HostLaunch &l : schedule.launches) {
    void *const *bindings = schedule.bindings.data() + l.firstBinding;
    auto start = launchUs ? std::chrono::steady_clock::now()
                          : std::chrono::steady_clock::time_point();
    if (l.parallel) {
      LaunchPart part{&l, bindings};
      pool.parallelFor(l.groups, runPart, &part);
    } else {
      for (int64_t g = 0; g < l.groups; ++g)
        l.entry(bindings, g, l.groups);
    }
    if (launchUs)
      launchUs->push_back(std::chrono::duration<double, std::micro>(
                              std::chrono::steady_clock::now() - start)
                              .count());
  }
  _mm_setcsr(saved);
}

} // namespace capture::rt
