#!/usr/bin/env bash
# The installed package, used from outside: `cmake --install` into a fresh
# prefix, then a project outside the tree (examples/link) finds it with
# find_package(Capture) and builds the C++ and the C API examples, the
# README's C++ tracer example and a program of the compile API; the runtime
# examples are built again with pkg-config alone. Every program runs: the C
# example on the runtime tests' modules, the C++ one training the PPO step
# that the installed capture-aot compiles and, again, the same step
# compiled by the compile API program (the same bytes), the tracer example
# fitting its line.
#   usage: BUILD SOURCE WORK PYTHON TESTDATA
set -euo pipefail
build="$1" source="$2" work="$3" python="$4" testdata="$5"
rm -rf "$work" && mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for tool in capture-aot capture-opt capture-interp capture-run; do
  test -x "$prefix/bin/$tool" || { echo "check_install: no bin/$tool" >&2; exit 1; }
done

cmake -S "$source/examples/link" -B "$work/cmake-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCAPTURE_TREE="$source" > "$work/configure.log"
cmake --build "$work/cmake-build" > "$work/build.log"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
c++ -O1 "$source/examples/cpp/train_ppo.cpp" -o "$work/train-ppo-pc" \
  $(pkg-config --cflags --libs capture-rt)
cc -std=c99 -O1 "$source/runtime/capi/test/example.c" -o "$work/c-example-pc" \
  $(pkg-config --cflags --libs capture-rt-c)

"$prefix/bin/capture-aot" "$source/examples/ppo_train.mlir" -o "$work/ppo.capmod"
"$python" "$source/examples/ppo_init.py" "$work/data"
for variant in cmake-build/train-ppo train-ppo-pc; do
  "$work/$variant" "$work/ppo.capmod" "$work/data" 3 > "$work/$(basename "$variant").txt"
  grep -q '^t = 3, ' "$work/$(basename "$variant").txt"
done
for variant in cmake-build/c-example c-example-pc; do
  # The runtime tests' modules have no host code: a Vulkan device for them.
  CAPTURE_DEVICE=vulkan \
    "$work/$variant" "$testdata/test.capmod" "$testdata/train.capmod" > /dev/null
done
cmp "$work/train-ppo.txt" "$work/train-ppo-pc.txt"
"$work/cmake-build/compile" "$source/examples/ppo_train.mlir" "$work/ppo-api.capmod" > /dev/null
cmp "$work/ppo.capmod" "$work/ppo-api.capmod"
"$work/cmake-build/quickstart" 50 > "$work/quickstart.txt"
grep -q ' after 50 steps, 1 recording$' "$work/quickstart.txt"
# The Python package, when it was built, from the prefix's dist-packages.
if [ -n "$(ls -d "$build"/python/capture 2>/dev/null)" ]; then
  site="$(ls -d "$prefix"/lib/python3*/dist-packages)"
  PYTHONPATH="$site" "$python" "$source/examples/link/check_python.py" "$site"
fi
echo "outside project: find_package(Capture) and pkg-config builds of the C++ and C examples, the tracer and the compile API ran"
