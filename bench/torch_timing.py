"""Times a PyTorch training step the way bench/run.py reads it: warm-up
steps, then each step timed alone; prints the mean and the median, p10 and
p90 in microseconds."""
import statistics
import time

import torch


def report(step, steps, warmup, what):
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e6)
    q = statistics.quantiles(times, n=10) if len(times) > 1 else times * 9
    print("torch %s threads=%d %s: %.1f us/step (median %.1f, p10 %.1f, "
          "p90 %.1f)" % (torch.__version__, torch.get_num_threads(), what,
                         statistics.mean(times), statistics.median(times),
                         q[0], q[8]))
