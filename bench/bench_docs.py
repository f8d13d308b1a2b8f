"""Writes bench/run.py's results into docs/benchmarks.md (between the
`<!-- bench:begin -->` and `<!-- bench:end -->` markers) and
docs/benchmarks.png (µs per PPO step against batch size).

usage (after `bench/run.py --json FILE`): bench_docs.py FILE [run.py args]
"""
import json
import os
import sys

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
MODES = [("replay", "captured replay"), ("eager", "eager (1 submission per kernel)"),
         ("torch1", "PyTorch CPU, 1 thread"), ("torch2", "PyTorch CPU, 2 threads"),
         ("cpu1", "cpu driver, 1 thread"), ("cpu", "cpu driver, 1 thread per core")]


def _plot(report, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = sorted((w for w in report["workloads"]
                   if w["workload"].startswith("ppo")), key=lambda w: w["batch"])
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
    batches = [w["batch"] for w in rows]
    for key, label in MODES:
        if any(key not in w["figures"] for w in rows):
            continue
        med = [w["figures"][key]["median"] for w in rows]
        lo = [m - w["figures"][key]["p10"] for m, w in zip(med, rows)]
        hi = [w["figures"][key]["p90"] - m for m, w in zip(med, rows)]
        ax.errorbar(batches, med, yerr=[lo, hi], marker="o", capsize=3,
                    label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(batches)
    ax.set_xticklabels([str(b) for b in batches])
    ax.set_xlabel("batch size")
    ax.set_ylabel("µs per training step (median, p10-p90)")
    ax.set_title("PPO actor-critic step on %s" % rows[0]["device"], fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    return True


def _section(report, args, has_plot):
    lines = [BEGIN, ""]
    dev = report["workloads"][0]["device"] if report["workloads"] else "?"
    lines.append("## %s, %s" % (report["date"], dev))
    lines.append("")
    lines.append("Rerun: `/usr/bin/python3 bench/run.py %s` (%d steps x %d "
                 "rounds; medians over the rounds of each run's per-step "
                 "median, p10 and p90)." % (" ".join(args), report["steps"],
                                           report["rounds"]))
    lines.append("")
    nthr = max([w.get("cpu_driver_threads", 0) for w in report["workloads"]]
               + [1])
    lines.append("| workload | dispatches | llvmpipe threads | wait | replay | "
                 "eager | torch 1 thr | torch 2 thr | blocking wait / replay "
                 "| private tiles / replay | eager / replay | torch 1 / replay "
                 "| torch 2 / replay | host overhead | cpu driver 1 thr "
                 "| cpu driver %d thr | torch 1 / cpu 1 thr "
                 "| torch 2 / cpu %d thr |" % (nthr, nthr))
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
                 "| --- | --- | --- | --- | --- | --- | --- | --- |")
    for w in report["workloads"]:
        f, r = w["figures"], w["ratios"]
        cell = lambda k: "%.0f µs (%.0f–%.0f)" % (
            f[k]["median"], f[k]["p10"], f[k]["p90"])
        block = ("%.2f" % r["replay_block"] if "replay_block" in r
                 else "–")
        private = "%.2f" % r["private"] if "private" in r else "–"
        cpu1 = cpu = torch_cpu1 = torch_cpu = "–"
        if "cpu" in f and "cpu1" in f:
            cpu1, cpu = cell("cpu1"), cell("cpu")
            torch_cpu1 = "%.2f" % (f["torch1"]["median"] / f["cpu1"]["median"])
            torch_cpu = "%.2f" % (f["torch2"]["median"] / f["cpu"]["median"])
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | "
                     "%.2f | %.2f | %.2f | %.1f µs | %s | %s | %s | %s |" % (
                         w["title"], w["dispatches"],
                         w.get("cpu_threads") or "–", w.get("wait") or "–",
                         cell("replay"), cell("eager"), cell("torch1"),
                         cell("torch2"), block, private, r["eager"],
                         r["torch1"], r["torch2"], w["host_overhead_us"],
                         cpu1, cpu, torch_cpu1, torch_cpu))
    lines.append("")
    if "floor" in report:
        fl = report["floor"]
        lines.append("Floor terms on the same device: submit + wait with one "
                     "tiny dispatch %.1f µs; each further dependent dispatch "
                     "%.2f µs; 1 MiB upload + download %.1f µs (the 1 MiB "
                     "step less the tiny one and less its kernel's extra "
                     "device time; all three without llvmpipe's pool). "
                     "The run's figures are in `build/bench/results.json` "
                     "unless `--json` says otherwise. Host overhead "
                     "is the median over the calls of pack + submit + unpack "
                     "per replay (not the wait), from `capture-run --profile`. "
                     "llvmpipe threads: what `capture-run --cpu-threads auto` "
                     "(its default) chose from the module's work estimates, "
                     "for the replay and the eager runs alike: 0 (every "
                     "dispatch on the submitting thread) or pool (llvmpipe's "
                     "pool, one thread per core). Wait: what `capture-run "
                     "--wait auto` (its default) chose; where it is spin, "
                     "each round also replayed with `--wait block`, and "
                     "blocking wait / replay is what polling gains. Private "
                     "tiles: each round also replayed the step compiled with "
                     "`capture-aot --tile-shuffles=false` (every matmul lane "
                     "loads its own operands); private tiles / replay is "
                     "what sharing loads through subgroup shuffles gains. "
                     "Cpu driver: the step compiled with `capture-aot "
                     "--target=cpu`, its host code run by `rt::Module` on "
                     "the host device through `capture-bench-drivers`, in "
                     "the same rounds, on the calling thread alone and with "
                     "one thread per core (launches of less than 2^20 "
                     "multiply-adds stay on the caller); torch N / cpu N thr "
                     "above 1 means the cpu driver is faster." % (
                         fl["submit_wait_us"], fl["per_dispatch_us"],
                         fl["mib_round_trip_us"]))
        lines.append("")
    if has_plot:
        lines.append("![µs per PPO step against batch size](benchmarks.png)")
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def write(report, args, root):
    docs = os.path.join(root, "docs")
    has_plot = _plot(report, os.path.join(docs, "benchmarks.png"))
    path = os.path.join(docs, "benchmarks.md")
    with open(path) as f:
        text = f.read()
    section = _section(report, args, has_plot)
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + section + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w") as f:
        f.write(text)
    print("wrote %s%s" % (path, " and benchmarks.png" if has_plot else ""))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        report = json.load(f)
    write(report, sys.argv[2:],
          os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
