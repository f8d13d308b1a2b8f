"""Times a PyTorch training step the way bench/run.py reads it: warm-up
steps, then each step timed alone; prints the mean and the median, p10 and
p90 in microseconds; and pins the BLAS library's threads, which
torch.set_num_threads does not reach."""
import ctypes
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


def _openblas():
    """Every OpenBLAS loaded in this process (Debian's libblas, liblapack
    and libopenblas are separate copies, each with its own thread pool)."""
    with open("/proc/self/maps") as f:
        paths = sorted({line.split()[-1] for line in f
                        if "blas" in line and ".so" in line})
    # CDLL of a loaded library returns that copy (dlopen counts a reference).
    libs = [ctypes.CDLL(path) for path in paths]
    return [lib for lib in libs if hasattr(lib, "openblas_set_num_threads")]


def set_threads(threads):
    """PyTorch on `threads` threads, its BLAS included. Debian's torch
    multiplies through OpenBLAS (the pthreads build), whose worker threads
    torch.set_num_threads leaves alone: "one thread" would run the GEMMs on
    two cores, and the idle worker spins after each call, slowing whatever
    runs next in the process (a captured step timed in the same process,
    docs/benchmarks.md). Another BLAS is left as it is."""
    torch.set_num_threads(threads)
    torch.ones(2, 2) @ torch.ones(2, 2)  # the BLAS is loaded by now (no RNG)
    for lib in _openblas():
        lib.openblas_set_num_threads(threads)


def blas_note():
    """' openblas=N' (its threads now), or '' where no OpenBLAS is
    loaded."""
    libs = _openblas()
    return " openblas=%d" % libs[0].openblas_get_num_threads() if libs else ""


def report(step, steps, warmup, what):
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e6)
    print("torch %s threads=%d%s %s: %.1f us/step (median %.1f, p10 %.1f, "
          "p90 %.1f)" % (torch.__version__, torch.get_num_threads(),
                         blas_note(), what,
                         statistics.mean(times), quantile(times, 0.5),
                         quantile(times, 0.1), quantile(times, 0.9)))

