//===- module_access.h - Test-only access to a Module's internals -*- C++
//-*-===//
//
// Failures that may leave device state unknown cannot be provoked on demand
// through the public API; these hooks let tests do it (and turn off input
// skipping, for the comparison with it on).
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_TEST_MODULE_ACCESS_H
#define CAPTURE_RT_TEST_MODULE_ACCESS_H

#include "module_impl.h"

namespace capture::rt {

/// The friend of Module that tests use.
struct ModuleTestAccess {
  /// Makes the next replay of `m` fail after staging its inputs, before
  /// submitting.
  static void failNextReplay(Module &m) { m.impl_->failNextReplay = true; }
  /// The wait history of entry `name` of `m` (null when there is none).
  static WaitHistory *waitHistory(Module &m, const std::string &name) {
    for (EntryState &e : m.impl_->entries)
      if (m.impl_->desc.entries[e.index].name == name)
        return &e.waitHistory;
    return nullptr;
  }
  /// Makes every replay of `m` send all of its inputs.
  static void disableInputSkipping(Module &m) {
    for (EntryState &e : m.impl_->entries)
      e.canSkipInputs = false;
  }
};

} // namespace capture::rt

#endif // CAPTURE_RT_TEST_MODULE_ACCESS_H
