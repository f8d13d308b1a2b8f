//===- progress.cpp - capture-run's progress line -------------------------===//

#include "progress.h"

#include <cstdio>
#include <unistd.h>

namespace capture::run {

Progress::Progress(std::string what, uint64_t total)
    : what(std::move(what)), total(total), enabled(isatty(STDERR_FILENO)),
      start(std::chrono::steady_clock::now()), lastDraw(start) {}

Progress::~Progress() { clear(); }

void Progress::update(uint64_t done) {
  if (!enabled)
    return;
  auto now = std::chrono::steady_clock::now();
  double elapsed = std::chrono::duration<double>(now - start).count();
  if (elapsed < 1.0 ||
      (drawn && now - lastDraw < std::chrono::milliseconds(100)))
    return;
  lastDraw = now;
  double left = done ? elapsed * static_cast<double>(total - done) /
                           static_cast<double>(done)
                     : 0.0;
  // \r and erase-to-end-of-line: redraw in place, whatever was there.
  std::fprintf(stderr,
               "\r\033[Kcapture-run: %s %llu/%llu (%.0f%%), %.1f s, "
               "about %.1f s left",
               what.c_str(), static_cast<unsigned long long>(done),
               static_cast<unsigned long long>(total),
               100.0 * static_cast<double>(done) / static_cast<double>(total),
               elapsed, left);
  std::fflush(stderr);
  drawn = true;
}

void Progress::clear() {
  if (!drawn)
    return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn = false;
}

} // namespace capture::run
