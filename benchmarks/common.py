"""What the benchmark scripts share: the versions line of a report, and a median timing."""
import importlib.metadata
import os
import platform
import statistics
import time


def versions(names):
    """"NAME VERSION, ..." of the installed packages ``names`` (the libraries and engines the
    numbers depend on; "(not installed)" for a missing one)."""
    found = []
    for name in names:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return ", ".join(found)


def machine(packages, shared=True):
    """"Machine: ARCH, N cores (shared), Python X; NAME VERSION, ...": a report's line on
    what the numbers were measured on (``packages``: those they depend on)."""
    cores = f"{os.cpu_count()} cores" + (" (shared)" if shared else "")
    return (f"Machine: {platform.machine()}, {cores}, Python {platform.python_version()}; "
            f"{versions(packages)}.")


def median_call(call, budget=0.05, repeats=5):
    """Median seconds of one ``call()`` over ``repeats`` batches of ~``budget`` s each (after
    two calls: a warm one and one that sizes the batch)."""
    call()
    start = time.perf_counter()
    call()
    once = max(time.perf_counter() - start, 1e-7)
    batch = max(1, int(budget / once))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(batch):
            call()
        times.append((time.perf_counter() - start) / batch)
    return statistics.median(times)
