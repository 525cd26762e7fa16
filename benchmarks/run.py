"""Every benchmark of issue 7 in one command, written to ``benchmarks/RESULTS.md``.

Runs, in this order (about 4 minutes on 2 cores):

1. the JIT cost: a first run in a fresh interpreter with an empty numba cache, then a cached
   one (:func:`chain.compile_times`);
2. the N-link chain against Pinocchio + scipy, MuJoCo and Exudyn at 1e-3 and 1e-6 rad
   (:mod:`peers`), N = 2, 10, 50;
3. the four-bar loop and the mass hitting a BISTOP wall (:mod:`models`);
4. the cost of one evaluation inside a compiled loop, and its scaling for N = 10 ... 400 with
   the fitted exponent (:mod:`chain`).

The markdown goes to stdout and, whole or not at all, to ``benchmarks/RESULTS.md`` (a
different file with ``--out``). Usage::

    pip install -e '.[bench]'
    python benchmarks/run.py [--out FILE] [sizes ...]
"""
import argparse
import io
import os
import sys
import time
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import chain  # noqa: E402
import models  # noqa: E402
import peers  # noqa: E402
from common import machine  # noqa: E402

from mbd.model.files import atomic_open  # noqa: E402

#: the packages whose versions the report names
PACKAGES = ["numpy", "scipy", "numba", "pin", "mujoco", "exudyn"]


def report(sizes):
    """The whole RESULTS.md text."""
    started = time.perf_counter()
    out = io.StringIO()
    w = lambda line="": print(line, file=out)  # noqa: E731
    w(f"# Benchmarks of issue 7 — {time.strftime('%Y-%m-%d')}")
    w()
    w(f"Command: `python benchmarks/run.py` (everything below, one run). "
      f"{machine(PACKAGES, shared=False)}")
    w()
    cold, warm = chain.compile_times()
    w("## JIT cost")
    w()
    w(f"A first run in a fresh interpreter with an empty numba cache (import, build, a 0.01 s "
      f"simulation of a 3-link chain) takes {cold:.1f} s, nearly all of it compiling the "
      f"kernels and the integrator loop; the same in a second interpreter, loading them from "
      f"the cache, {warm:.2f} s.")
    w()
    w("## N-link chain: mbd against the engines an engineer would pick instead")
    w()
    rows, notes = peers.main(sizes)
    w(peers.table(rows))
    w()
    for note in notes:
        w(f"- {note}")
    w()
    w(peers.READING)
    w()
    w("## Four-bar loop and a mass hitting a BISTOP wall")
    w()
    rows, notes = models.main()
    w(models.render(rows))
    w()
    for note in notes:
        w(f"- {note}")
    w()
    w("## One evaluation, and its scaling")
    w()
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        chain.tables(sizes)
    w(buffer.getvalue().rstrip())
    w()
    w(f"Total run time {time.perf_counter() - started:.0f} s.")
    w()
    w(OTHERS)
    return out.getvalue()


#: the benchmarks that write their own files (each takes minutes of its own)
OTHERS = ("Also: stiff models (Radau and method=\"auto\" against scipy, Pinocchio, MuJoCo and "
          "Exudyn) in `STIFF.md`, by `python benchmarks/stiff.py`; sweep throughput in "
          "`SWEEP.md`, by `python benchmarks/sweep.py`; URDF robots (the Talos humanoid "
          "built and its forward dynamics against Pinocchio and MuJoCo) in `URDF.md`, by "
          "`python benchmarks/urdf.py`; what a signal or a controller costs in `CONTROL.md`, "
          "by `python benchmarks/control.py`.")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[2, 10, 50])
    parser.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    args = parser.parse_args(argv)
    text = report(args.sizes)
    print(text)
    with atomic_open(args.out) as f:
        f.write(text)


if __name__ == "__main__":
    main()
