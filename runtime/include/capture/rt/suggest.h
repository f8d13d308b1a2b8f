//===- suggest.h - "Did you mean" for misspelt names ------------*- C++ -*-===//
//
// A caller's entry, input, weight or probe name that the module lacks is an
// error; when one of the module's names is a likely intended spelling, the
// message says so rather than leaving the user to compare lists. The
// compiler (ag::suggestName), capture-run's options and the runtime share
// this one rule, so a typo is corrected alike wherever it is made.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_SUGGEST_H
#define CAPTURE_RT_SUGGEST_H

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace capture::rt {

/// " (did you mean 'X'?)" for the candidate nearest `name`, or "" when none
/// is near. Near: a case-insensitive edit distance (an adjacent swap counts
/// as one edit) of at most max(1, |name| / 3), and less than |name|, so
/// that a one-letter name is not "corrected" into another. Ties go to the
/// earlier candidate.
std::string suggestName(std::string_view name,
                        const std::vector<std::string_view> &candidates);

/// suggestName among the `name` fields of `items` (descriptors, or
/// pointers to them).
template <typename T>
std::string suggestNameIn(std::string_view name, const std::vector<T> &items) {
  std::vector<std::string_view> names;
  for (const T &item : items) {
    if constexpr (std::is_pointer_v<T>)
      names.push_back(item->name);
    else
      names.push_back(item.name);
  }
  return suggestName(name, names);
}

} // namespace capture::rt

#endif // CAPTURE_RT_SUGGEST_H
