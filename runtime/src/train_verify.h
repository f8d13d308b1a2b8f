//===- train_verify.h - Checks of a Train entry's train table ---*- C++ -*-===//

#ifndef CAPTURE_RT_TRAIN_VERIFY_H
#define CAPTURE_RT_TRAIN_VERIFY_H

#include "capture/rt/module_desc.h"
#include "capture/rt/status.h"

namespace capture::rt {

/// Checks `entry.train` (which must be present) against the module: the
/// hyperparameters, that the named inputs and output exist with the shapes
/// the runtime writes and reads, that output 0 (the loss) is a scalar, and
/// the parameter and moment ranges. Assumes the buffers, the weights and the
/// entry's tensor slots are already verified. Messages start with
/// "capmod: entry 'NAME': train.".
Status verifyTrainEntry(const ModuleDesc &desc, const EntryDesc &entry);

} // namespace capture::rt

#endif // CAPTURE_RT_TRAIN_VERIFY_H
