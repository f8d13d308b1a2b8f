#!/usr/bin/env python3
"""The PPO actor-critic update of bench/ppo_torch.py (its model and loss,
imported; AdamW(3e-4, (0.9, 0.999), 1e-8, 0.01) after clip_grad_norm_(0.5))
in PyTorch on CUDA, timed two ways: eagerly, and captured once with
torch.cuda.graph and replayed (static inputs, warm-up on a side stream,
AdamW with capturable=True, clip_grad_norm_ inside the graph). Capture's
GPU peer for bench/gpu/run.sh.

Every timed step ends with the loss and the gradient norm on the host (one
copy), as capture-run's steps and ppo_torch.py's do; each step is timed
alone. Rounds alternate (eager, graph, eager, ...) so that noise hits both;
the summary is the median over the rounds of each round's median, p10 and
p90. Before timing, the graph's first replays are checked against the same
eager steps from the same weights. With --data, weights and batch come from
examples/ppo_init.py's files (as capture-run gets them), so the first
steps' losses can be compared with Capture's.

usage: python3 ppo_cuda.py [--batches 64,256,1024] [--steps 200]
                           [--rounds 3] [--warmup 20] [--device cuda]
                           [--data 'DIR/ppo{batch}/data'] [--seed 0]
                           [--json FILE]
--device cpu is a dry run of the eager path (no CUDA graph). Exits 2 when
CUDA is asked for and not available, 3 when the graph's losses differ from
the eager ones. Timing prints `... : MEAN us/step (median M, p10 P, p90 Q)`
like bench/torch_timing.py.
"""
import argparse
import inspect
import json
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))  # bench/: ppo_torch, torch_timing

import torch  # noqa: E402

import ppo_torch  # noqa: E402

CHECK_STEPS = 5
GRAPH_WARMUP = 3  # eager steps on a side stream before the capture


def make_batch(batch, seed, device, data):
    """The inputs as ppo_torch.py draws them, or examples/ppo_init.py's."""
    if data:
        import numpy as np
        return {k: torch.from_numpy(np.load(os.path.join(
            data, "input.%s.npy" % k))).to(device)
            for k in ("obs", "act", "adv", "ret", "old_logp")}
    g = torch.Generator().manual_seed(seed + 1)
    shapes = {"obs": (batch, ppo_torch.OBS), "act": (batch, ppo_torch.ACTIONS),
              "adv": (batch,), "ret": (batch,), "old_logp": (batch,)}
    cpu = {k: torch.randn(*s, generator=g) for k, s in shapes.items()}
    return {k: v.to(device) for k, v in cpu.items()}


class Trainer:
    """One model, its optimizer and a step that leaves [loss, grad_norm] in
    a device tensor."""

    def __init__(self, seed, device, data):
        torch.manual_seed(seed)
        self.model = ppo_torch.ActorCritic()
        if data:
            import numpy as np
            with torch.no_grad():
                for name, q in self.model.named_parameters():
                    q.copy_(torch.from_numpy(np.load(os.path.join(
                        data, "init.%s.npy" % name))))
        self.model.to(device)
        self.params = list(self.model.parameters())
        cuda = device.type == "cuda"
        # capturable keeps the step count on the device (no host read);
        # foreach is what the graph then records.
        extra = {"capturable": True, "foreach": True} if cuda else {}
        self.opt = torch.optim.AdamW(self.params, lr=3e-4, betas=(0.9, 0.999),
                                     eps=1e-8, weight_decay=0.01, **extra)
        # error_if_nonfinite=False (the default) keeps clip_grad_norm_ free
        # of host syncs; foreach (torch >= 2.0) makes it a few kernels.
        self.clip = {}
        sig = inspect.signature(torch.nn.utils.clip_grad_norm_).parameters
        if cuda and "foreach" in sig:
            self.clip["foreach"] = True

    def step(self, batch):
        loss = self.model.loss(**batch)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(self.params, 0.5, **self.clip)
        self.opt.step()
        return torch.stack([loss.detach(), norm.detach()])


class Graphed:
    """A Trainer's step captured once; replay() runs it on the static
    inputs."""

    def __init__(self, trainer, batch):
        self.trainer = trainer
        self.batch = batch  # static: replays read these tensors
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        # Warm-up outside the capture, on a side stream (PyTorch's recipe):
        # it creates AdamW's state and lets lazy initialisation happen.
        with torch.cuda.stream(side):
            for _ in range(GRAPH_WARMUP):
                trainer.step(batch)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        # Gradients from the graph's own pool, rewritten by every replay.
        trainer.opt.zero_grad(set_to_none=True)
        with torch.cuda.graph(self.graph):
            self.out = trainer.step(batch)

    def step(self):
        self.graph.replay()
        return self.out


def to_host(t):
    return t.tolist()  # one device -> host copy, which waits for the step


def time_steps(step, steps, warmup):
    for _ in range(warmup):
        to_host(step())
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        to_host(step())
        times.append((time.perf_counter() - t0) * 1e6)
    return times


def back_to_back(step, steps, device):
    """Mean per step with no host read in between (what a loop that never
    looks at the loss would see); CUDA events where there is CUDA."""
    if device.type != "cuda":
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        return (time.perf_counter() - t0) * 1e6 / steps
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(steps):
        step()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / steps


def stats(times):
    q = statistics.quantiles(times, n=10) if len(times) > 1 else times * 9
    return {"mean": statistics.mean(times), "median": statistics.median(times),
            "p10": q[0], "p90": q[8]}


def line(what, s):
    """bench/torch_timing.py's line, so that bench/run.py's parser reads
    it."""
    return ("torch %s threads=%d %s: %.1f us/step (median %.1f, p10 %.1f, "
            "p90 %.1f)" % (torch.__version__, torch.get_num_threads(), what,
                           s["mean"], s["median"], s["p10"], s["p90"]))


def check(eager, graphed, batch):
    """The graph's first replays against the same eager steps from the same
    weights (both after GRAPH_WARMUP eager steps)."""
    for _ in range(GRAPH_WARMUP):
        eager.step(batch)
    want = [to_host(eager.step(batch)) for _ in range(CHECK_STEPS)]
    got = [to_host(graphed.step()) for _ in range(CHECK_STEPS)]
    rel = max(abs(g[i] - w[i]) / max(abs(w[i]), 1e-12)
              for g, w in zip(got, want) for i in (0, 1))
    return {"eager": want, "graph": got, "max_rel_diff": rel,
            "ok": rel <= 1e-4}


def run_batch(b, a, device):
    data = a.data.format(batch=b) if a.data else None
    if data and not os.path.isdir(data):
        sys.exit("ppo_cuda.py: --data: no directory %s" % data)
    batch = make_batch(b, a.seed, device, data)
    row = {"batch": b}
    # The first steps from the initial weights, to set beside Capture's.
    first = Trainer(a.seed, device, data)
    row["first_steps"] = [to_host(first.step(batch))
                          for _ in range(CHECK_STEPS)]
    eager = Trainer(a.seed, device, data)
    graphed = None
    if device.type == "cuda":
        graphed = Graphed(Trainer(a.seed, device, data), batch)
        row["check"] = check(eager, graphed, batch)
        c = row["check"]
        print("ppo batch=%d graph vs eager, %d steps: max rel diff %.2e %s"
              % (b, CHECK_STEPS, c["max_rel_diff"],
                 "ok" if c["ok"] else "MISMATCH"), flush=True)
    modes = {"eager": lambda: eager.step(batch)}
    if graphed:
        modes["graph"] = graphed.step
    samples = {m: [] for m in modes}
    for r in range(a.rounds):
        for m, step in modes.items():
            s = stats(time_steps(step, a.steps, a.warmup))
            samples[m].append(s)
            print(line("ppo batch=%d %s %s round %d" % (b, device.type, m,
                                                        r + 1), s), flush=True)
    for m, step in modes.items():
        s = {k: statistics.median(x[k] for x in samples[m])
             for k in ("mean", "median", "p10", "p90")}
        s["back_to_back_us"] = back_to_back(step, a.steps, device)
        s["rounds"] = samples[m]
        row[m] = s
        print(line("ppo batch=%d %s %s, median of %d rounds"
                   % (b, device.type, m, a.rounds), s)
              + " back-to-back %.1f us/step" % s["back_to_back_us"],
              flush=True)
    return row


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batches", default="64,256,1024")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--device", default="cuda")
    p.add_argument("--data", help="examples/ppo_init.py's files, '{batch}' "
                                  "standing for the batch size")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json")
    a = p.parse_args()
    try:
        batches = [int(x) for x in a.batches.split(",")]
    except ValueError:
        p.error("--batches: comma-separated integers, got '%s'" % a.batches)
    if min(batches) < 1 or a.steps < 2 or a.rounds < 1 or a.warmup < 0:
        p.error("--batches >= 1, --steps >= 2, --rounds >= 1, --warmup >= 0")
    device = torch.device(a.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("ppo_cuda.py: CUDA is not available to torch %s (built for CUDA "
              "%s; %d devices seen): nothing to time. --device cpu is a dry "
              "run without the CUDA graph."
              % (torch.__version__, torch.version.cuda,
                 torch.cuda.device_count()), file=sys.stderr)
        return 2
    name = (torch.cuda.get_device_name(device) if device.type == "cuda"
            else "cpu (dry run: no CUDA graph)")
    print("ppo_cuda.py: torch %s on %s, %d steps x %d rounds per mode"
          % (torch.__version__, name, a.steps, a.rounds), flush=True)
    report = {"torch": torch.__version__, "cuda": torch.version.cuda,
              "device": name, "steps": a.steps, "rounds": a.rounds,
              "warmup": a.warmup, "batches": []}
    for b in batches:
        report["batches"].append(run_batch(b, a, device))
        if a.json:  # what is done so far survives a later failure
            with open(a.json, "w") as f:
                json.dump(report, f, indent=1)
    bad = [r["batch"] for r in report["batches"]
           if not r.get("check", {}).get("ok", True)]
    if bad:
        print("ppo_cuda.py: the graph's steps differ from the eager ones at "
              "batch %s" % ",".join(map(str, bad)), file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
