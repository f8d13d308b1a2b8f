# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: how the sanitizers
# report. Any report stops the process with an error (and a core-less
# abort, so that a test or libFuzzer sees a crash).
# - detect_container_overflow=0 and allow_user_poisoning=0: Debian's LLVM
#   and MLIR are not instrumented, so a std::vector or a BumpPtrAllocator
#   slab grown by their code and read by ours (whose inlined copies do
#   annotate) would be reported although nothing is wrong (ASan's FAQ).
#   Out-of-bounds, use-after-free and leaks are still caught.
# - LeakSanitizer ignores what Mesa's lavapipe and its LLVM keep for the
#   process lifetime (scripts/lsan.supp); our own code must not leak.
root="${root:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:disable_coredump=1:detect_container_overflow=0:allow_user_poisoning=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# lavapipe and the validation layer are preloaded: the Vulkan loader unloads
# a driver with its instance, and LeakSanitizer could then not name the
# library of what the driver keeps ("<unknown module>"), so that
# scripts/lsan.supp could not match it.
libdir="/usr/lib/$(gcc -print-multiarch)"
export LD_PRELOAD="$libdir/libvulkan_lvp.so:$libdir/libVkLayer_khronos_validation.so"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
