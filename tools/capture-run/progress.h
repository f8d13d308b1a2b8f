//===- progress.h - capture-run's progress line on stderr -------*- C++ -*-===//
//
// Long runs (thousands of replays, hundreds of steps) show how far they
// are, on one line of stderr redrawn in place. Only when stderr is a
// terminal (a log file must not fill with carriage returns) and only once
// the run has taken a second (short runs stay quiet).
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RUN_PROGRESS_H
#define CAPTURE_RUN_PROGRESS_H

#include <chrono>
#include <cstdint>
#include <string>

namespace capture::run {

/// The progress line of one run of `total` calls.
class Progress {
public:
  /// `what` names a call in the line ("replay", "step").
  Progress(std::string what, uint64_t total);
  /// Erases the line.
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// Reports `done` calls finished; redraws at most every 100 ms, from the
  /// first second on.
  void update(uint64_t done);
  /// Erases the line, if drawn, so that stdout can print on a terminal
  /// shared with stderr; the next update draws it again.
  void clear();

private:
  /// What a call is called.
  std::string what;
  /// Calls in the run.
  uint64_t total;
  /// Whether stderr is a terminal.
  bool enabled;
  /// Whether the line is on the screen.
  bool drawn = false;
  /// When the run started.
  std::chrono::steady_clock::time_point start;
  /// When the line was last drawn.
  std::chrono::steady_clock::time_point lastDraw;
};

} // namespace capture::run

#endif // CAPTURE_RUN_PROGRESS_H
