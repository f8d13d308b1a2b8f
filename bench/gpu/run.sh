#!/usr/bin/env bash
# Capture on a machine with an NVIDIA GPU, in one bounded run: brings the
# Vulkan loader if the machine lacks it, builds if it must and can, replays
# the PPO step (compiled with --target=gpu) on the GPU's Vulkan driver,
# runs the same step in PyTorch on CUDA eagerly and captured with
# torch.cuda.graph (bench/gpu/ppo_cuda.py), and prints all side by side.
# Targets: Capture's replay >= 10x faster than PyTorch eager on the same
# device, and no slower than the torch.cuda.graph step.
#
# usage: bench/gpu/run.sh [--build DIR] [--steps N] [--rounds N]
#                         [--batches 64,256,1024] [--device SEL]
#                         [--budget SECONDS] [--no-run-py] [--prepare]
#   --build DIR  Capture's build (default build); ./scripts/build.sh runs
#                only when DIR/bin/capture-aot or capture-run is missing
#   --device SEL capture-run's Vulkan device selector (default nvidia)
#   --budget S   the whole run's time limit (default 420 s): every step is
#                cut to what is left
#   --no-run-py  skips bench/run.py (lavapipe-shaped kernels, the CPU peers)
#   --prepare    for a machine with the toolchain and a network, before the
#                GPU run: builds, compiles the modules for both targets with
#                their data, and downloads the Vulkan loader's .debs, all
#                into DIR/gpu-bench. A bare GPU machine then needs neither
#                LLVM nor a network: carry DIR/bin,
#                DIR/tools/capture-run/capture-run and DIR/gpu-bench.
# env: CAPTURE_GPU_STEPS (200), CAPTURE_GPU_ROUNDS (3), CAPTURE_GPU_BATCHES,
#      CAPTURE_GPU_DEVICE, CAPTURE_GPU_BUDGET, PYTHON (tried before python3
#      and /usr/bin/python3), CAPTURE_GPU_ALLOW_CPU=1 (no NVIDIA GPU: the
#      Vulkan part on lavapipe and PyTorch on the CPU, a dry run of every
#      path but the CUDA graph). With $OUT set, writes $OUT/gpu-bench.md,
#      gpu-bench.json and gpu-bench.log.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/build"
steps="${CAPTURE_GPU_STEPS:-200}"
rounds="${CAPTURE_GPU_ROUNDS:-3}"
batches="${CAPTURE_GPU_BATCHES:-64,256,1024}"
selector="${CAPTURE_GPU_DEVICE:-nvidia}"
budget="${CAPTURE_GPU_BUDGET:-420}"
allow_cpu="${CAPTURE_GPU_ALLOW_CPU:-0}"
run_py=1
prepare=0

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --batches) batches="$2"; shift 2 ;;
    --device) selector="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --no-run-py) run_py=0; shift ;;
    --prepare) prepare=1; shift ;;
    -h|--help) usage 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
  esac
done
for n in "$steps" "$rounds" "$budget"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "run.sh: not a number: '$n'" >&2; exit 2; }
done
[[ "$batches" =~ ^[0-9]+(,[0-9]+)*$ ]] ||
  { echo "run.sh: --batches: comma-separated sizes, got '$batches'" >&2; exit 2; }
((steps >= 2 && rounds >= 1)) ||
  { echo "run.sh: --steps must be >= 2 and --rounds >= 1" >&2; exit 2; }
IFS=, read -r -a batch_list <<<"$batches"

case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
aot="$build/bin/capture-aot"
interp="$build/bin/capture-interp"
crun="$build/tools/capture-run/capture-run"
mods="$build/gpu-bench"        # modules, data, .debs: what a GPU run carries
res="$(mktemp -d "${TMPDIR:-/tmp}/capture-gpu.XXXXXX")"  # this run's results
outdir="${OUT:-$mods/results}"
mkdir -p "$outdir"
: >"$res/raw.txt"
: >"$res/notes.txt"
if [ -n "${OUT:-}" ]; then
  # The whole log comes back too, even when the run is cut short.
  exec > >(tee "$OUT/gpu-bench.log") 2>&1
  tee_pid=$!
  # Lets tee write the last lines before the runner collects $OUT.
  trap 'exec >&- 2>&- 3>&-; wait "$tee_pid" 2>/dev/null || true' EXIT
fi
exec 3>&1  # notes reach the log also from commands whose output is a file

section() { printf '\n== %s (%ds into the run)\n' "$*" "$SECONDS"; }
say() { printf '%s\n' "$*"; }
# A note is something missing or skipped: printed now and in the summary.
note() { printf 'NOTE: %s\n' "$*" >&3; printf '%s\n' "$*" >>"$res/notes.txt"; }
raw() { printf '%s\n' "$*"; printf '%s\n' "$*" >>"$res/raw.txt"; }

# bounded LIMIT CMD...: CMD under `timeout`, cut to what the budget leaves
# (15 s kept for the summary). 124 when it ran out of time.
bounded() {
  local limit=$1 left=$((budget - SECONDS - 15))
  shift
  ((left < limit)) && limit=$left
  if ((limit < 5)); then
    note "out of time budget (${budget}s): skipped $(basename "$1")"
    return 124
  fi
  local rc=0
  timeout --kill-after=5 "$limit" "$@" || rc=$?
  ((rc == 124 || rc == 137)) && note "$(basename "$1") stopped after ${limit}s (time limit)"
  return "$rc"
}

# Libraries FILE needs that the dynamic loader does not find.
missing_libs() { ldd "$1" 2>/dev/null | awk '/not found/ {print $1}' | sort -u | tr '\n' ' '; }
# True when FILE exists and all its libraries resolve.
runnable() { [ -x "$1" ] && [ -z "$(missing_libs "$1")" ]; }

py_can() { "$1" -c "import $2" >/dev/null 2>&1; }

pick_pythons() {
  py="" py_np="" py_torch=""
  local c
  for c in ${PYTHON:+"$PYTHON"} python3 /usr/bin/python3; do
    command -v "$c" >/dev/null 2>&1 || continue
    [ -n "$py" ] || py="$(command -v "$c")"
    [ -z "$py_np" ] && py_can "$c" numpy && py_np="$(command -v "$c")"
    [ -z "$py_torch" ] && py_can "$c" "torch, numpy" && py_torch="$(command -v "$c")"
  done
  say "python: ${py:-none}; with numpy: ${py_np:-none}; with torch: ${py_torch:-none}"
  [ -n "$py" ] || note "no python3: no PyTorch part, no summary table (raw lines only)"
  [ -n "$py_torch" ] || note "no python3 with torch and numpy: no PyTorch CUDA part"
}

machine() {
  section "machine"
  say "$(uname -srm); $(nproc) cores; budget ${budget}s; $steps steps x $rounds rounds; batches $batches"
  gpu_name=""
  if command -v nvidia-smi >/dev/null 2>&1; then
    gpu_name="$(timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total \
      --format=csv,noheader 2>/dev/null | head -n 1 || true)"
  fi
  if [ -n "$gpu_name" ]; then
    say "NVIDIA GPU: $gpu_name"
  else
    note "no NVIDIA GPU found (nvidia-smi missing or silent)"
    [ "$allow_cpu" = 1 ] &&
      say "CAPTURE_GPU_ALLOW_CPU=1: dry run, Vulkan on lavapipe if '$selector' is absent, PyTorch on the CPU"
  fi
  pick_pythons
}

# Builds when a tool is missing and a toolchain is there; otherwise says so
# and goes on with what exists (carried tools, prepared modules).
ensure_build() {
  section "build ($build)"
  if [ -x "$aot" ] && [ -x "$crun" ]; then
    say "found $aot and $crun: no build"
  elif [ -f "$build/build.ninja" ] || [ -d /usr/lib/llvm-22/lib/cmake/mlir ]; then
    # scripts/build.sh configures against LLVM 22's MLIR when build.ninja is absent.
    say "building with ./scripts/build.sh"
    if ! CAPTURE_BUILD_DIR="$build" bounded 300 "$root/scripts/build.sh"; then
      note "the build failed or ran out of time"
    fi
  else
    note "no build and no LLVM 22 / MLIR toolchain (/usr/lib/llvm-22/lib/cmake/mlir) to make one: carry a build (--prepare on a machine that has it)"
  fi
  local t
  for t in "$aot" "$interp" "$crun"; do
    if [ ! -x "$t" ]; then
      say "missing: $t"
    elif ! runnable "$t"; then
      say "$(basename "$t") lacks: $(missing_libs "$t")"
    fi
  done
}

# compile MLIR OUT [capture-aot args]: OUT only when capture-aot succeeds;
# its error (which can be a whole module) cut to a few lines.
compile() {
  local src=$1 out=$2
  shift 2
  rm -f "$out"
  if "$aot" "$@" "$src" -o "$out" >"$out.log" 2>&1; then
    return 0
  fi
  rm -f "$out"
  note "capture-aot $* failed on $src: $(grep -m 2 'error:' "$out.log" | tr '\n' ' ')"
  return 1
}

# DIR/ppoB/{model.mlir,gpu.capmod,lavapipe.capmod,data/}: compiled here when
# capture-aot runs, else the ones carried from --prepare.
ensure_modules() {
  section "modules ($mods)"
  local b d can_aot=0
  if runnable "$aot"; then
    can_aot=1
  elif [ -x "$aot" ]; then
    note "capture-aot cannot run here (lacks $(missing_libs "$aot" | sed "s/ $//")): using the prepared modules in $mods"
  else
    note "no capture-aot: using the prepared modules in $mods"
  fi
  for b in "${batch_list[@]}"; do
    d="$mods/ppo$b"
    mkdir -p "$d"
    if ((can_aot)) && [ -n "$py" ]; then
      if "$py" "$root/bench/ppo_model.py" --batch "$b" -o "$d/model.mlir"; then
        compile "$d/model.mlir" "$d/gpu.capmod" --target=gpu || true
        compile "$d/model.mlir" "$d/lavapipe.capmod" || true
      else
        note "ppo$b: bench/ppo_model.py failed"
      fi
    fi
    if [ -n "$py_np" ]; then
      "$py_np" "$root/examples/ppo_init.py" "$d/data" --batch "$b" ||
        note "ppo$b: examples/ppo_init.py failed"
    fi
    if [ -n "$(module_for "$b")" ]; then
      say "ppo$b: $(basename -a "$d"/*.capmod | tr '\n' ' ')+ data"
    else
      note "ppo$b: no module or no data (needs capture-aot and numpy, or --prepare's files)"
    fi
  done
}

# The module to time at batch B: the --target=gpu one, else the
# lavapipe-shaped one (named so in the summary); empty without data.
module_for() {
  local d="$mods/ppo$1"
  [ -d "$d/data" ] || return 0
  if [ -f "$d/gpu.capmod" ]; then
    echo gpu.capmod
  elif [ -f "$d/lavapipe.capmod" ]; then
    echo lavapipe.capmod
  fi
}

prepare_debs() {
  section "Vulkan loader .debs for a machine without one ($mods/debs)"
  mkdir -p "$mods/debs"
  # libglvnd0: libGLdispatch, which the NVIDIA ICD library links against.
  if (cd "$mods/debs" && timeout 120 apt-get download libvulkan1 libglvnd0); then
    ls -l "$mods/debs"
  else
    note "apt-get download libvulkan1 libglvnd0 failed: the GPU machine must have its own loader"
  fi
}

loader_ok() {
  if [ -x "$crun" ]; then
    if missing_libs "$crun" | grep -q 'libvulkan'; then return 1; fi
  else
    ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '
  fi
}

# Unpacks carried .debs into a private root (never over /) and puts its
# libraries on LD_LIBRARY_PATH.
use_carried_debs() {
  local debs=("$mods"/debs/*.deb) f
  [ -e "${debs[0]}" ] || return 1
  command -v dpkg-deb >/dev/null 2>&1 || { note "no dpkg-deb to unpack $mods/debs"; return 1; }
  for f in "${debs[@]}"; do dpkg-deb -x "$f" "$res/vkroot"; done
  export LD_LIBRARY_PATH="$res/vkroot/usr/lib/x86_64-linux-gnu:$res/vkroot/usr/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  say "unpacked $(basename -a "${debs[@]}" | tr '\n' ' ')into $res/vkroot"
}

try_apt() {
  command -v apt-get >/dev/null 2>&1 || { say "no apt-get"; return 1; }
  [ "$(id -u)" = 0 ] || { say "not root: no apt-get install"; return 1; }
  local pkgs=(libvulkan1 vulkan-tools)
  bounded 60 apt-get install -y -q --no-install-recommends "${pkgs[@]}" && return 0
  say "apt-get install failed; trying apt-get update first"
  bounded 45 apt-get update -q && bounded 60 apt-get install -y -q --no-install-recommends "${pkgs[@]}"
}

# The NVIDIA driver's ICD manifest: where the loader looks by default, or
# named by VK_DRIVER_FILES when it lies elsewhere (e.g. a driver mount).
find_icd() {
  if [ -n "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]; then
    say "VK_DRIVER_FILES='${VK_DRIVER_FILES:-}' VK_ICD_FILENAMES='${VK_ICD_FILENAMES:-}' (kept)"
    icd="${VK_DRIVER_FILES:-$VK_ICD_FILENAMES}"
    icd="${icd%%:*}"
    [ -f "$icd" ] || icd=""
    return 0
  fi
  local d f default=(/etc/xdg/vulkan/icd.d /etc/vulkan/icd.d /usr/local/share/vulkan/icd.d /usr/share/vulkan/icd.d)
  for d in "${default[@]}"; do
    for f in "$d"/nvidia*.json; do
      [ -f "$f" ] && { icd="$f"; say "NVIDIA ICD manifest: $f"; return 0; }
    done
  done
  f="$(find /usr/local/nvidia /usr/lib/nvidia /opt/nvidia -maxdepth 6 -name 'nvidia_icd*.json' 2>/dev/null | head -n 1 || true)"
  if [ -n "$f" ]; then
    icd="$f"
    export VK_DRIVER_FILES="$f" VK_ICD_FILENAMES="$f"
    say "NVIDIA ICD manifest outside the loader's search path: $f (VK_DRIVER_FILES set)"
    return 0
  fi
  note "no NVIDIA Vulkan ICD manifest (nvidia_icd.json) in ${default[*]} or /usr/local/nvidia"
  return 1
}

# The manifest's library (libGLX_nvidia.so.0 usually) must load, with its
# own libraries.
check_icd_library() {
  local lib path="" d
  lib="$(sed -n 's/.*"library_path"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$icd" | head -n 1)"
  [ -n "$lib" ] || return 0
  if [[ "$lib" == /* ]]; then
    [ -f "$lib" ] && path="$lib"
  elif ldconfig -p 2>/dev/null | grep -qF "$lib "; then
    path="$(ldconfig -p | grep -F "$lib " | head -n 1 | sed 's/.*=> //')"
  else
    for d in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }} /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
      if [ -f "$d/$lib" ]; then
        path="$d/$lib"
        case ":${LD_LIBRARY_PATH:-}:" in *":$d:"*) ;; *) export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;; esac
        break
      fi
    done
  fi
  if [ -z "$path" ]; then
    note "the ICD's library $lib is not found (ldconfig, LD_LIBRARY_PATH, /usr/local/nvidia/lib64)"
  elif [ -n "$(missing_libs "$path")" ] && ! { [ ! -d "$res/vkroot" ] &&
    use_carried_debs && [ -z "$(missing_libs "$path")" ]; }; then
    # The carried .debs hold libglvnd0's libGLdispatch.so.0, which the
    # NVIDIA library links against; tried once more above.
    note "the ICD's library $path lacks: $(missing_libs "$path")(libGLdispatch.so.0 is in libglvnd0)"
  else
    say "ICD library: $path"
  fi
}

ensure_vulkan() {
  section "Vulkan loader and driver"
  icd=""
  if loader_ok; then
    say "Vulkan loader: found"
  else
    note "the Vulkan loader libvulkan.so.1 is missing"
    if use_carried_debs && loader_ok; then
      say "Vulkan loader: from $mods/debs"
    elif try_apt && loader_ok; then
      say "Vulkan loader: installed with apt-get"
    else
      note "could not bring libvulkan.so.1 (no carried .debs in $mods/debs, apt-get failed): no Capture part"
      return 1
    fi
  fi
  if [ -n "$gpu_name" ] && find_icd; then
    [ -n "$icd" ] && check_icd_library
  fi
  return 0
}

# capture-run's --input/--param arguments for a data directory, one a line.
data_args() {
  local f b
  for f in "$1"/*.npy; do
    b="${f##*/}"
    b="${b%.npy}"
    case "$b" in
      input.*) printf -- '--input\n%s=%s\n' "${b#input.}" "$f" ;;
      *) printf -- '--param\n%s=%s\n' "${b#*.}" "$f" ;;
    esac
  done
}

# capture B MODULE LABEL OUT [capture-run args]: one timed run to OUT.json.
capture() {
  local b=$1 module=$2 label=$3 out=$4 rc=0
  shift 4
  local dargs=()
  mapfile -t dargs < <(data_args "$mods/ppo$b/data")
  bounded 120 "$crun" "$mods/ppo$b/$module" --entry train --json \
    --device "$selector" "${dargs[@]}" "$@" >"$out" 2>"$out.err" || rc=$?
  if ((rc != 0)); then
    ((rc == 124 || rc == 137)) || say "capture-run ($label) failed (exit $rc): $(tail -c 1500 "$out.err")"
    rm -f "$out"
    return "$rc"
  fi
  [ -n "$py" ] && raw "$("$py" -c '
import json, sys
d = json.load(open(sys.argv[1])); t = d["timing"]
print("capture %s on %s: %.1f us/step (median %.1f, p10 %.1f, p90 %.1f)"
      % (sys.argv[2], d["device"]["name"], t["mean_us"], t["median_us"],
         t["p10_us"], t["p90_us"]))' "$out" "$label")"
  return 0
}

# Picks the Vulkan device with a 1-step run; capture-run's error lists the
# devices it found.
pick_device() {
  local b m=""
  for b in "${batch_list[@]}"; do
    m="$(module_for "$b")"
    [ -z "$m" ] || break
  done
  [ -n "$m" ] || { note "no modules: no Capture part"; return 1; }
  local rc=0
  capture "$b" "$m" "probe" "$res/probe.json" --steps 1 || rc=$?
  ((rc == 0)) && return 0
  ((rc == 124 || rc == 137)) && return 1  # out of time: bounded said so
  if [ "$allow_cpu" = 1 ] && [ "$selector" != cpu ]; then
    note "no Vulkan device matches '$selector': CAPTURE_GPU_ALLOW_CPU=1, so lavapipe ('cpu') instead"
    selector=cpu
    capture "$b" "$m" "probe" "$res/probe.json" --steps 1 && return 0
  fi
  note "no usable Vulkan device for '$selector': no Capture part"
  return 1
}

run_capture() {
  section "Capture on Vulkan (device '$selector')"
  [ -x "$crun" ] || { note "no capture-run ($crun): no Capture part"; return 1; }
  ensure_vulkan || return 1
  pick_device || return 1
  local b r m t
  for b in "${batch_list[@]}"; do
    m="$(module_for "$b")"
    [ -n "$m" ] || continue
    t="${m%.capmod}-target"
    [ "$m" = gpu.capmod ] ||
      note "ppo$b: no --target=gpu module: the Capture figures are the lavapipe-shaped kernels'"
    echo "$t" >"$res/capture-$b-target.txt"
    "$crun" "$mods/ppo$b/$m" --info --json >"$res/capture-$b-info.json" 2>/dev/null || true
    # Replay and eager alternate so that noise hits both.
    for ((r = 1; r <= rounds; r++)); do
      capture "$b" "$m" "ppo$b $t replay round $r" \
        "$res/capture-$b-replay-$r.json" --steps "$steps" || true
      capture "$b" "$m" "ppo$b $t eager round $r" \
        "$res/capture-$b-eager-$r.json" --steps "$steps" --eager || true
      # Auto blocks on a GPU; whether polling the fence pays there too.
      capture "$b" "$m" "ppo$b $t replay --wait spin round $r" \
        "$res/capture-$b-spin-$r.json" --steps "$steps" --wait spin || true
    done
    # Where the step goes (device vs host), and the lavapipe-shaped kernels
    # (texel-buffer reads) on the same device for comparison.
    capture "$b" "$m" "ppo$b $t replay --profile" \
      "$res/capture-$b-profile.json" --steps "$steps" --profile || true
    if [ "$m" = gpu.capmod ] && [ -f "$mods/ppo$b/lavapipe.capmod" ]; then
      capture "$b" lavapipe.capmod "ppo$b lavapipe-target replay" \
        "$res/capture-$b-lavapipe-1.json" --steps "$steps" || true
    fi
  done
  return 0
}

run_torch() {
  section "PyTorch on CUDA: eager and torch.cuda.graph"
  [ -n "$py_torch" ] || return 1
  local dev=cuda rc=0 data="$mods/ppo{batch}/data" b
  # Capture's weights and batch (examples/ppo_init.py) where every batch
  # has them, so that the first losses compare; else ppo_torch.py's draw.
  for b in "${batch_list[@]}"; do [ -d "$mods/ppo$b/data" ] || data=""; done
  if [ "$allow_cpu" = 1 ] && ! "$py_torch" -c 'import sys, torch; sys.exit(not torch.cuda.is_available())'; then
    note "torch sees no CUDA: CAPTURE_GPU_ALLOW_CPU=1, so a CPU dry run without the CUDA graph"
    dev=cpu
  fi
  PYTHONUNBUFFERED=1 bounded 240 "$py_torch" "$root/bench/gpu/ppo_cuda.py" \
    --batches "$batches" --steps "$steps" --rounds "$rounds" --device "$dev" \
    ${data:+--data "$data"} --json "$res/torch.json" 2>&1 | tee "$res/torch.txt" || rc=$?
  grep '^torch ' "$res/torch.txt" >>"$res/raw.txt" || true
  if ((rc == 2)); then
    note "no CUDA for PyTorch (ppo_cuda.py exit 2): no PyTorch CUDA figures"
  elif ((rc != 0)); then
    note "bench/gpu/ppo_cuda.py failed (exit $rc)"
  fi
  [ -f "$res/torch.json" ]
}

# bench/run.py: the project's benchmark (lavapipe-shaped kernels, eager
# Vulkan, PyTorch on the CPU, floor terms) with its Vulkan runs on this
# device. It compiles with capture-aot and runs its helpers with
# /usr/bin/python3, so both must work here.
run_benchmark_py() {
  section "bench/run.py on device '$selector'"
  ((run_py)) || { say "skipped (--no-run-py)"; return 0; }
  local why=""
  runnable "$aot" || why="capture-aot cannot run here"
  runnable "$interp" || why="${why:+$why; }capture-interp cannot run here"
  py_can /usr/bin/python3 "torch, numpy" || why="${why:+$why; }/usr/bin/python3 (which run.py uses) lacks torch or numpy"
  [ -f "$res/probe.json" ] || why="${why:+$why; }no Vulkan device"
  if [ -n "$why" ]; then
    note "bench/run.py skipped: $why"
    return 0
  fi
  local workloads="" b
  for b in "${batch_list[@]}"; do workloads+="ppo$b,"; done
  PYTHONUNBUFFERED=1 bounded 240 /usr/bin/python3 "$root/bench/run.py" --build "$build" \
    --device "$selector" --steps "$steps" --rounds "$rounds" \
    --workloads "${workloads}mlp128" --json "$res/run-py.json" 2>&1 |
    tee "$res/run-py.txt" || note "bench/run.py failed or ran out of time"
}

# The side-by-side table, the targets and the raw lines, to stdout and to
# $outdir/gpu-bench.{md,json}.
summarize() {
  section "summary"
  if [ -z "$py" ]; then
    cat "$res/raw.txt" "$res/notes.txt"
    return 0
  fi
  if ! "$py" "$root/bench/gpu/summarize.py" "$res" "$outdir" "$batches" "$rounds" "$steps" "$selector" "${gpu_name:-}"; then
    note "the summary failed: raw lines follow"
    cat "$res/raw.txt"
  fi
}

main() {
  machine
  ensure_build
  ensure_modules
  if ((prepare)); then
    prepare_debs
    section "prepared"
    say "carry: ${build#"$root"/}/bin ${build#"$root"/}/tools/capture-run/capture-run ${build#"$root"/}/gpu-bench"
    return 0
  fi
  local have_capture=0 have_torch=0
  run_torch && have_torch=1
  run_capture && [ -n "$(ls "$res"/capture-*-replay-*.json 2>/dev/null)" ] && have_capture=1
  run_benchmark_py
  summarize
  say "finished in ${SECONDS}s; every run's output is in $res"
  if ((have_capture && have_torch)); then return 0; fi
  say "incomplete: Capture figures $( ((have_capture)) && echo yes || echo no), PyTorch figures $( ((have_torch)) && echo yes || echo no)"
  return 1
}

# Sourcing the script (for a test of one function) runs nothing.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then main; fi
