"""Times a PyTorch training step the way bench/run.py reads it: warm-up
steps, then each step timed alone; prints the mean and the median, p10 and
p90 in microseconds."""
import statistics
import time

import torch


def quantile(times, q):
    """The q-quantile as capture-run takes it (the nearest rank over n - 1
    intervals), so that both sides of a ratio are read alike; always one of
    the samples (statistics.quantiles extrapolates below the smallest one
    when there are few)."""
    s = sorted(times)
    return s[min(int(q * (len(s) - 1) + 0.5), len(s) - 1)]


def report(step, steps, warmup, what):
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e6)
    print("torch %s threads=%d %s: %.1f us/step (median %.1f, p10 %.1f, "
          "p90 %.1f)" % (torch.__version__, torch.get_num_threads(), what,
                         statistics.mean(times), quantile(times, 0.5),
                         quantile(times, 0.1), quantile(times, 0.9)))
