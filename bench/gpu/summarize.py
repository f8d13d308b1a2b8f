#!/usr/bin/python3
"""The summary of bench/gpu/run.sh: one side-by-side table of Capture on the
GPU's Vulkan and PyTorch on CUDA (eager and torch.cuda.graph), from the
JSON and text files a run left in RES, written as OUTDIR/gpu-bench.md and
gpu-bench.json and printed.

usage: summarize.py RES OUTDIR BATCHES ROUNDS STEPS SELECTOR GPU_NAME
"""
import datetime, glob, json, os, statistics, sys

res, outdir, batches, rounds, steps, selector, gpu = sys.argv[1:8]
batches = [int(b) for b in batches.split(",")]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def capture(b, kind):
    runs = [load(p) for p in sorted(glob.glob("%s/capture-%d-%s-*.json"
                                              % (res, b, kind)))]
    runs = [r for r in runs if r]
    if not runs:
        return None
    return {k: statistics.median(r["timing"][k + "_us"] for r in runs)
            for k in ("median", "p10", "p90")}


def us(f):
    return "—" if not f else "%.1f (p10 %.1f, p90 %.1f)" % (
        f["median"], f["p10"], f["p90"])


def ratio(num, den, target):
    if not num or not den:
        return "—", None
    r = num["median"] / den["median"]
    return "%.2f (%s)" % (r, "met" if r >= target else "not met, target >= %g"
                          % target), r


torch = load(os.path.join(res, "torch.json")) or {}
tb = {r["batch"]: r for r in torch.get("batches", [])}
probe = load(os.path.join(res, "probe.json"))
vk = probe["device"]["name"] if probe else "none"
report = {"date": datetime.date.today().isoformat(), "steps": int(steps),
          "rounds": int(rounds), "vulkan_device": vk, "selector": selector,
          "gpu": gpu, "torch": {k: torch.get(k) for k in
                                ("torch", "cuda", "device")},
          "rows": []}
md = ["# Capture on the GPU's Vulkan vs PyTorch on CUDA: PPO step", "",
      "%s; Vulkan device: %s (selector '%s'); PyTorch %s on %s; %s steps x "
      "%s rounds, per-step medians (µs), the median over the rounds. Ratios "
      "above 1: Capture is faster." % (report["date"], vk, selector,
                                       torch.get("torch", "—"),
                                       torch.get("device", "—"), steps,
                                       rounds), "",
      "| batch | dispatches | Capture replay | Capture eager | PyTorch CUDA "
      "eager | PyTorch CUDA graph | eager / capture (>= 10) | graph / capture "
      "(>= 1) |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
detail = ["", "| batch | Capture kernels on the device (mean) | Capture host (pack+"
          "submit+unpack) | Capture, lavapipe-shaped kernels | Capture replay "
          "with --wait spin | PyTorch eager "
          "back-to-back | PyTorch graph back-to-back | first losses, "
          "Capture vs PyTorch |",
          "| --- | --- | --- | --- | --- | --- | --- | --- |"]
for b in batches:
    rep, eag = capture(b, "replay"), capture(b, "eager")
    t = tb.get(b, {})
    te, tg = t.get("eager"), t.get("graph")
    info = load("%s/capture-%d-info.json" % (res, b))
    disp = "—"
    if info:
        e = [e for e in info.get("entries", []) if e.get("name") == "train"]
        disp = str(e[0]["dispatches"]) if e else "—"
    re_s, re_v = ratio(te, rep, 10)
    rg_s, rg_v = ratio(tg, rep, 1)
    try:
        target = open("%s/capture-%d-target.txt" % (res, b)).read().strip()
    except OSError:
        target = ""
    shaped = " (lavapipe-shaped kernels)" if target == "lavapipe-target" else ""
    md.append("| %d | %s | %s%s | %s | %s | %s | %s | %s |" % (
        b, disp, us(rep), shaped, us(eag), us(te), us(tg), re_s, rg_s))
    prof = load("%s/capture-%d-profile.json" % (res, b))
    kern = host = "—"
    if prof and "profile" in prof:
        p = prof["profile"]
        h = p["host_us"]
        kern = "%.1f" % (p["kernel_device_us"] / p["calls"])
        host = "%.1f" % ((h["pack"] + h["record"] + h["submit"] + h["unpack"])
                         / p["calls"])
    lp = capture(b, "lavapipe")
    spin = capture(b, "spin")
    losses = "—"
    first = (load("%s/capture-%d-replay-1.json" % (res, b)) or {}).get("steps")
    if first and t.get("first_steps"):
        n = min(len(first), len(t["first_steps"]))
        cap = [s["loss"] for s in first[:n]]
        pt = [s[0] for s in t["first_steps"][:n]]
        rel = max(abs(c - q) / max(abs(q), 1e-12) for c, q in zip(cap, pt))
        losses = "max rel diff %.1e over %d steps" % (rel, n)
    detail.append("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
        b, kern, host, us(lp), us(spin),
        "%.1f" % te["back_to_back_us"] if te else "—",
        "%.1f" % tg["back_to_back_us"] if tg else "—", losses))
    report["rows"].append({
        "batch": b, "dispatches": disp, "capture_target": target,
        "capture_replay": rep,
        "capture_eager": eag, "capture_lavapipe_target": lp,
        "capture_replay_spin": spin,
        "capture_kernel_us": kern, "capture_host_us": host,
        "torch_eager": te and {k: te[k] for k in te if k != "rounds"},
        "torch_graph": tg and {k: tg[k] for k in tg if k != "rounds"},
        "eager_over_capture": re_v, "graph_over_capture": rg_v,
        "graph_check": t.get("check"), "losses": losses})
md += detail
with open(os.path.join(res, "notes.txt")) as f:
    notes = list(dict.fromkeys(l.strip() for l in f if l.strip()))
report["notes"] = notes
if notes:
    md += ["", "Missing or skipped:", ""] + ["- " + n for n in notes]
with open(os.path.join(res, "raw.txt")) as f:
    rawlines = f.read().rstrip("\n")
md += ["", "Raw lines:", "", "```", rawlines, "```"]
runpy = load(os.path.join(res, "run-py.json"))
if runpy:
    report["run_py"] = runpy
    md += ["", "bench/run.py (lavapipe-shaped kernels on this device, "
           "PyTorch on the CPU) printed:", "", "```",
           open(os.path.join(res, "run-py.txt")).read().rstrip("\n"), "```"]
report["raw"] = rawlines.split("\n")
text = "\n".join(md) + "\n"
print(text)
with open(os.path.join(outdir, "gpu-bench.md"), "w") as f:
    f.write(text)
with open(os.path.join(outdir, "gpu-bench.json"), "w") as f:
    json.dump(report, f, indent=1)
print("wrote %s/gpu-bench.md and gpu-bench.json" % outdir)
