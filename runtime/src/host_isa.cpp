//===- host_isa.cpp - Does this machine run a host library's code? -------===//

#include "capture/rt/host_isa.h"

#include "capture/rt/suggest.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <cstdint>

namespace capture::rt {
namespace {

/// What the machine reports: cpuid leaves 1, 7 and 0x80000001, and the
/// register state the OS saves (XCR0).
struct CpuidBits {
  /// Leaf 1 ECX.
  uint32_t ecx1 = 0;
  /// Leaf 7 (sub-leaf 0) EBX.
  uint32_t ebx7 = 0;
  /// Leaf 0x80000001 ECX.
  uint32_t ecxExt = 0;
  /// XCR0 (0 without OSXSAVE).
  uint64_t xcr0 = 0;
};

CpuidBits readCpuid() {
  CpuidBits bits;
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (__get_cpuid(1, &a, &b, &c, &d))
    bits.ecx1 = c;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
    bits.ebx7 = b;
  if (__get_cpuid(0x80000001u, &a, &b, &c, &d))
    bits.ecxExt = c;
  // xgetbv is only defined when the OS enabled it (OSXSAVE, leaf 1 ECX 27).
  if (bits.ecx1 & (1u << 27)) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    bits.xcr0 = (static_cast<uint64_t>(hi) << 32) | lo;
  }
#endif
  return bits;
}

/// One feature of a level and how cpuid shows it.
struct Feature {
  /// The level that introduces it (index into kHostIsaLevels).
  int level;
  /// Its name (GCC's __builtin_cpu_supports spelling where it has one).
  const char *name;
  /// Whether the machine has it.
  bool (*present)(const CpuidBits &);
};

bool bit(uint32_t word, int n) { return (word >> n) & 1u; }
/// The OS saves the SSE and AVX (YMM) registers.
bool avxState(const CpuidBits &c) { return (c.xcr0 & 0x6) == 0x6; }
/// ... and the AVX-512 ones (opmask, ZMM0-15 high halves, ZMM16-31).
bool avx512State(const CpuidBits &c) {
  return avxState(c) && (c.xcr0 & 0xe0) == 0xe0;
}

// The psABI's levels (x86-64 baseline has no feature to check here).
constexpr Feature kFeatures[] = {
    {1, "cx16", [](const CpuidBits &c) { return bit(c.ecx1, 13); }},
    {1, "lahf_lm", [](const CpuidBits &c) { return bit(c.ecxExt, 0); }},
    {1, "popcnt", [](const CpuidBits &c) { return bit(c.ecx1, 23); }},
    {1, "sse3", [](const CpuidBits &c) { return bit(c.ecx1, 0); }},
    {1, "sse4.1", [](const CpuidBits &c) { return bit(c.ecx1, 19); }},
    {1, "sse4.2", [](const CpuidBits &c) { return bit(c.ecx1, 20); }},
    {1, "ssse3", [](const CpuidBits &c) { return bit(c.ecx1, 9); }},
    {2, "avx",
     [](const CpuidBits &c) { return bit(c.ecx1, 28) && avxState(c); }},
    {2, "avx2",
     [](const CpuidBits &c) { return bit(c.ebx7, 5) && avxState(c); }},
    {2, "bmi", [](const CpuidBits &c) { return bit(c.ebx7, 3); }},
    {2, "bmi2", [](const CpuidBits &c) { return bit(c.ebx7, 8); }},
    {2, "f16c", [](const CpuidBits &c) { return bit(c.ecx1, 29); }},
    {2, "fma",
     [](const CpuidBits &c) { return bit(c.ecx1, 12) && avxState(c); }},
    {2, "lzcnt", [](const CpuidBits &c) { return bit(c.ecxExt, 5); }},
    {2, "movbe", [](const CpuidBits &c) { return bit(c.ecx1, 22); }},
    {2, "xsave", [](const CpuidBits &c) { return bit(c.ecx1, 26); }},
    {3, "avx512f",
     [](const CpuidBits &c) { return bit(c.ebx7, 16) && avx512State(c); }},
    {3, "avx512bw",
     [](const CpuidBits &c) { return bit(c.ebx7, 30) && avx512State(c); }},
    {3, "avx512cd",
     [](const CpuidBits &c) { return bit(c.ebx7, 28) && avx512State(c); }},
    {3, "avx512dq",
     [](const CpuidBits &c) { return bit(c.ebx7, 17) && avx512State(c); }},
    {3, "avx512vl",
     [](const CpuidBits &c) { return bit(c.ebx7, 31) && avx512State(c); }},
};

} // namespace

Result<std::vector<std::string>> missingHostFeatures(std::string_view level) {
  int index = -1;
  std::vector<std::string_view> levels;
  for (std::string_view known : kHostIsaLevels) {
    if (known == level)
      index = static_cast<int>(levels.size());
    levels.push_back(known);
  }
  if (index < 0) {
    std::string list;
    for (std::string_view known : levels)
      list += (list.empty() ? "'" : ", '") + std::string(known) + "'";
    return Status::error("unknown host ISA level '" + std::string(level) +
                         "': expected one of " + list +
                         suggestName(level, levels));
  }
  std::vector<std::string> missing;
#if defined(__x86_64__)
  CpuidBits bits = readCpuid();
  for (const Feature &feature : kFeatures)
    if (feature.level <= index && !feature.present(bits))
      missing.push_back(feature.name);
#else
  // Not an x86-64 machine: none of x86-64 code runs here.
  missing.push_back("x86-64");
#endif
  return missing;
}

Status checkHostIsa(std::string_view level) {
  Result<std::vector<std::string>> missing = missingHostFeatures(level);
  if (missing.isError())
    return missing.status();
  if (missing->empty())
    return Status::ok();
  std::string names;
  for (const std::string &name : missing.value())
    names += (names.empty() ? "" : ", ") + name;
  return Status::error("the module's host code needs " + std::string(level) +
                       ", and this machine lacks " + names);
}

} // namespace capture::rt
