//===- environment.h - Device options from the environment ------*- C++ -*-===//
//
// The library never reads the environment by itself: what a device is
// created with comes from DeviceOptions. Tools and applications that want
// the usual variables read them here and pass the result:
//
//   CAPTURE_DEVICE      a selector (DeviceOptions::selector) when none is given
//   CAPTURE_VALIDATION  "1", "true", "on" or "yes": DeviceOptions::validation
//
// (LP_NUM_THREADS is llvmpipe's own variable, which the driver reads; the
// runtime leaves a user's value in place: DeviceOptions::cpuThreads.)
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_ENVIRONMENT_H
#define CAPTURE_RT_ENVIRONMENT_H

#include "capture/rt/device.h"

namespace capture::rt {

/// Whether env CAPTURE_VALIDATION asks for validation ("1", "true", "on",
/// "yes", any case).
bool validationRequestedByEnv();

/// `options` with what the environment asks for: CAPTURE_DEVICE as the
/// selector when options.selector is empty (selectorSource then names the
/// variable, for messages), and validation on when CAPTURE_VALIDATION asks.
DeviceOptions deviceOptionsFromEnvironment(DeviceOptions options = {});

} // namespace capture::rt

#endif // CAPTURE_RT_ENVIRONMENT_H
