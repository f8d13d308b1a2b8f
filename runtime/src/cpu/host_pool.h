//===- host_pool.h - Workgroups split across host threads -------*- C++ -*-===//
//
// The cpu driver's threads: the calling thread and threads() - 1 workers
// that split one launch's workgroups into contiguous parts and join before
// the next launch (a barrier, or any launch after another, is a join). A
// worker spins a short while after each part, so that the launches of one
// step do not pay a sleep and a wake each, then sleeps on a condition
// variable until the next job.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_CPU_HOST_POOL_H
#define CAPTURE_RT_CPU_HOST_POOL_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace capture::rt {

/// MXCSR's flush-to-zero and denormals-are-zero bits: the kernels run with
/// both set, on the caller (for a run) and on every worker.
constexpr unsigned kFlushDenormals = 0x8000 | 0x0040;

/// A job: run parts [begin, end) of the workgroups with `context`.
using HostPart = void (*)(const void *context, int64_t begin, int64_t end);

class HostPool {
public:
  /// A pool of `threads` threads in all, the caller included (>= 1; 1 runs
  /// everything on the caller). Each worker runs with denormals flushed to
  /// zero, as the caller does while it runs a schedule.
  explicit HostPool(unsigned threads);
  HostPool(const HostPool &) = delete;
  HostPool &operator=(const HostPool &) = delete;
  /// Stops and joins the workers.
  ~HostPool();

  /// Threads in all, the caller included.
  unsigned threads() const { return static_cast<unsigned>(workers.size()) + 1; }

  /// Runs part(context, begin, end) over [0, count) split into threads()
  /// contiguous parts (fewer when count is smaller), the caller taking the
  /// first; returns when every part is done.
  void parallelFor(int64_t count, HostPart part, const void *context);

private:
  /// Worker `index`'s loop (1-based: the caller is part 0).
  void workerLoop(unsigned index);

  /// The workers.
  std::vector<std::thread> workers;
  /// The current job; read by workers after they see `generation` change.
  HostPart jobPart = nullptr;
  /// The current job's context.
  const void *jobContext = nullptr;
  /// The current job's workgroup count.
  int64_t jobCount = 0;
  /// Bumped once per job (release) so that workers see it (acquire).
  std::atomic<uint64_t> generation{0};
  /// Workers that have not finished the current job's part yet.
  std::atomic<unsigned> pending{0};
  /// Workers asleep on `wake` (or about to be).
  std::atomic<unsigned> sleeping{0};
  /// Set once, by the destructor.
  std::atomic<bool> stop{false};
  /// Guards the sleep on `wake`.
  std::mutex mutex;
  /// Wakes sleeping workers for a new job or the stop.
  std::condition_variable wake;
};

/// Contiguous part `index` of `parts` of [0, count): [begin, end).
inline void hostPartRange(int64_t count, unsigned parts, unsigned index,
                          int64_t &begin, int64_t &end) {
  int64_t base = count / parts, extra = count % parts;
  begin = index * base + std::min<int64_t>(index, extra);
  end = begin + base + (static_cast<int64_t>(index) < extra ? 1 : 0);
}

} // namespace capture::rt

#endif // CAPTURE_RT_CPU_HOST_POOL_H
