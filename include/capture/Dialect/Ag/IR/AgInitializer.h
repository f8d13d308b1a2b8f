//===- AgInitializer.h - #ag.init as the runtime's initializer --*- C++ -*-===//
//
// The one translation of an `#ag.init` rule into the runtime's
// InitializerDesc, used by the module writer (which stores it) and by the
// interpreter (which evaluates it with the runtime's own code), so that both
// start from the same bits. Header-only: its users link capture-capmod.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_DIALECT_AG_IR_AGINITIALIZER_H
#define CAPTURE_DIALECT_AG_IR_AGINITIALIZER_H

#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/rt/module_desc.h"

namespace capture::ag {

// The dialect's kinds are the runtime's (which the module file's schema
// fixes): the same values, so that the two translations below are casts.
static_assert(static_cast<int>(InitKind::zeros) ==
                  static_cast<int>(rt::InitKind::Zeros) &&
              static_cast<int>(InitKind::constant) ==
                  static_cast<int>(rt::InitKind::Constant) &&
              static_cast<int>(InitKind::uniform) ==
                  static_cast<int>(rt::InitKind::Uniform) &&
              static_cast<int>(InitKind::normal) ==
                  static_cast<int>(rt::InitKind::Normal) &&
              static_cast<int>(InitKind::linear) ==
                  static_cast<int>(rt::InitKind::Linear));

/// The runtime's kind of a dialect kind.
inline rt::InitKind toRtInitKind(InitKind kind) {
  return static_cast<rt::InitKind>(static_cast<int>(kind));
}

/// The dialect's kind of a runtime kind (the tracer's Init).
inline InitKind fromRtInitKind(rt::InitKind kind) {
  return static_cast<InitKind>(static_cast<int>(kind));
}

/// The runtime's form of `rule`; its values, verified finite f32 values,
/// are rounded to f32 here.
inline rt::InitializerDesc toInitializerDesc(InitAttr rule) {
  rt::InitializerDesc d;
  auto a = static_cast<float>(rule.getA().convertToDouble());
  auto b = static_cast<float>(rule.getB().convertToDouble());
  d.kind = toRtInitKind(rule.getKind());
  d.fanIn = rule.getFanIn();
  d.seed = rule.getSeed();
  switch (rule.getKind()) {
  case InitKind::constant:
    d.value = a;
    break;
  case InitKind::uniform:
    d.low = a;
    d.high = b;
    break;
  case InitKind::normal:
    d.mean = a;
    d.std = b;
    break;
  case InitKind::zeros:
  case InitKind::linear:
    break;
  }
  return d;
}

} // namespace capture::ag

#endif // CAPTURE_DIALECT_AG_IR_AGINITIALIZER_H
