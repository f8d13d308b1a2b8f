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

/// The runtime's form of `rule`; its values, verified finite f32 values,
/// are rounded to f32 here.
inline rt::InitializerDesc toInitializerDesc(InitAttr rule) {
  rt::InitializerDesc d;
  auto a = static_cast<float>(rule.getA().convertToDouble());
  auto b = static_cast<float>(rule.getB().convertToDouble());
  d.fanIn = rule.getFanIn();
  d.seed = rule.getSeed();
  switch (rule.getKind()) {
  case InitKind::zeros:
    d.kind = rt::InitKind::Zeros;
    break;
  case InitKind::constant:
    d.kind = rt::InitKind::Constant;
    d.value = a;
    break;
  case InitKind::uniform:
    d.kind = rt::InitKind::Uniform;
    d.low = a;
    d.high = b;
    break;
  case InitKind::normal:
    d.kind = rt::InitKind::Normal;
    d.mean = a;
    d.std = b;
    break;
  case InitKind::linear:
    d.kind = rt::InitKind::Linear;
    break;
  }
  return d;
}

} // namespace capture::ag

#endif // CAPTURE_DIALECT_AG_IR_AGINITIALIZER_H
