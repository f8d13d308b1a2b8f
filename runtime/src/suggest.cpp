//===- suggest.cpp - "Did you mean" for misspelt names --------------------===//

#include "capture/rt/suggest.h"

#include <algorithm>
#include <cctype>

namespace capture::rt {

/// Optimal string alignment distance between `a` and `b`, ignoring case.
static size_t editDistance(std::string_view a, std::string_view b) {
  auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  };
  // Three rows of the dynamic program: i - 2, i - 1 and i.
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1),
      row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) &&
          same(a[i - 2], b[j - 1]))
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
}

std::string suggestName(std::string_view name,
                        const std::vector<std::string_view> &candidates) {
  size_t limit = std::max<size_t>(1, name.size() / 3);
  std::string_view best;
  size_t bestDistance = limit + 1;
  for (std::string_view candidate : candidates) {
    size_t d = editDistance(name, candidate);
    if (d < bestDistance && d < name.size()) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (bestDistance > limit || best == name)
    return "";
  return " (did you mean '" + std::string(best) + "'?)";
}

} // namespace capture::rt
