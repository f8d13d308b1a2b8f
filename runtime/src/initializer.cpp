//===- initializer.cpp - Weight initializers evaluated at load ------------===//

#include "capture/rt/initializer.h"

#include <cmath>
#include <cstdint>
#include <sstream>

namespace capture::rt {
namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

/// SplitMix64's output function.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// u(i) of seed `seed`: 24 random bits, so every value is exact in float.
double unit(uint64_t seed, uint64_t i) {
  return static_cast<double>(mix(seed + (i + 1) * kGolden) >> 40) *
         (1.0 / 16777216.0);
}

void fillUniform(double low, double high, uint64_t seed, size_t count,
                 float *out) {
  for (size_t i = 0; i < count; ++i)
    out[i] = static_cast<float>(low + (high - low) * unit(seed, i));
}

} // namespace

const char *initKindName(InitKind kind) {
  switch (kind) {
  case InitKind::Zeros:
    return "zeros";
  case InitKind::Constant:
    return "constant";
  case InitKind::Uniform:
    return "uniform";
  case InitKind::Normal:
    return "normal";
  case InitKind::Linear:
    return "linear";
  }
  return "unknown";
}

Status checkInitializer(const InitializerDesc &init, const std::string &where) {
  auto bad = [&](const std::string &what) {
    return Status::error(where + ": " + initKindName(init.kind) +
                         " initializer: " + what);
  };
  auto finite = [&](const char *name, float v) -> Status {
    if (std::isfinite(v))
      return Status::ok();
    std::ostringstream os;
    os << name << " must be finite, got " << v;
    return bad(os.str());
  };
  switch (init.kind) {
  case InitKind::Zeros:
    return Status::ok();
  case InitKind::Constant:
    return finite("value", init.value);
  case InitKind::Uniform: {
    CAPTURE_RT_RETURN_IF_ERROR(finite("low", init.low));
    CAPTURE_RT_RETURN_IF_ERROR(finite("high", init.high));
    if (init.low > init.high) {
      std::ostringstream os;
      os << "low must be <= high, got low " << init.low << " and high "
         << init.high;
      return bad(os.str());
    }
    return Status::ok();
  }
  case InitKind::Normal: {
    CAPTURE_RT_RETURN_IF_ERROR(finite("mean", init.mean));
    CAPTURE_RT_RETURN_IF_ERROR(finite("std", init.std));
    if (init.std < 0) {
      std::ostringstream os;
      os << "std must be >= 0, got " << init.std;
      return bad(os.str());
    }
    return Status::ok();
  }
  case InitKind::Linear:
    if (init.fanIn < 1)
      return bad("fan_in must be >= 1, got " + std::to_string(init.fanIn));
    return Status::ok();
  }
  return Status::error(where + ": initializer kind " +
                       std::to_string(static_cast<unsigned>(init.kind)) +
                       " is unknown, expected zeros (0), constant (1), "
                       "uniform (2), normal (3) or linear (4)");
}

void evaluateInitializer(const InitializerDesc &init, size_t count,
                         float *out) {
  switch (init.kind) {
  case InitKind::Zeros:
  case InitKind::Constant: {
    float v = init.kind == InitKind::Zeros ? 0.0f : init.value;
    for (size_t i = 0; i < count; ++i)
      out[i] = v;
    return;
  }
  case InitKind::Uniform:
    fillUniform(init.low, init.high, init.seed, count, out);
    return;
  case InitKind::Linear: {
    double bound = 1.0 / std::sqrt(static_cast<double>(init.fanIn));
    fillUniform(-bound, bound, init.seed, count, out);
    return;
  }
  case InitKind::Normal: {
    const double twoPi = 6.283185307179586476925286766559;
    for (size_t i = 0; i < count; i += 2) {
      double r = std::sqrt(-2.0 * std::log(1.0 - unit(init.seed, i)));
      double t = twoPi * unit(init.seed, i + 1);
      out[i] = static_cast<float>(init.mean + init.std * r * std::cos(t));
      if (i + 1 < count)
        out[i + 1] = static_cast<float>(init.mean + init.std * r * std::sin(t));
    }
    return;
  }
  }
}

std::string describeInitializer(const InitializerDesc &init) {
  std::ostringstream os;
  os << initKindName(init.kind);
  switch (init.kind) {
  case InitKind::Zeros:
    break;
  case InitKind::Constant:
    os << "(value=" << init.value << ")";
    break;
  case InitKind::Uniform:
    os << "(low=" << init.low << ", high=" << init.high
       << ", seed=" << init.seed << ")";
    break;
  case InitKind::Normal:
    os << "(mean=" << init.mean << ", std=" << init.std
       << ", seed=" << init.seed << ")";
    break;
  case InitKind::Linear:
    os << "(fan_in=" << init.fanIn << ", seed=" << init.seed << ")";
    break;
  }
  return os.str();
}

} // namespace capture::rt
