"""The windows through their change points at every tolerance (issue 44): steps and wall time
per passage against the tolerance, for each method.

The windows of :mod:`windows` (N = 10, 40 and 80) released upright at 1 m/s run for 20 s, 20
passages through the horizontal, where the closures lose rank for an instant: at rtol 1e-6,
1e-8, 1e-10 and 1e-12 (atol = rtol / 100) with mbd's compiled DOP853, Radau IIA (which hands
each change point to DOP853 to jump, :mod:`mbd.run.steppers.changepoints`) and "auto". Each row
gives the steps and right-hand-side evaluations per passage (the run's, over its passages), the
wall time per passage (median of 3 runs, 1 where a run takes over 20 s), the crank tip's
largest error against the closed form (:func:`windows.crank_angle`), m, and the same figures
of the one-coordinate equation as a one-body tree (:func:`windows.pendulum_model`: what the
integrator costs and errs without any loop).

Run ``python benchmarks/passages.py``: prints the Markdown table and writes it to
``benchmarks/LOOPS.md`` in place of its section "Through the change points".
"""
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from windows import crank_angle, pendulum_model, windows_model  # noqa: E402

T_END = 20.0
RTOLS = (1e-6, 1e-8, 1e-10, 1e-12)
METHODS = ("DOP853", "Radau", "auto")
HEADING = "## Through the change points"


def run(system, n, rtol, method):
    """(steps, evaluations, median wall s, crank tip error m) of one 20 s run (the method's
    code compiled or loaded by a short run first)."""
    system.simulate(0.01, output_step=0.01, rtol=rtol, atol=rtol / 100, method=method)
    walls = []
    for _ in range(3):
        start = time.perf_counter()
        result = system.simulate(T_END, output_step=0.01, rtol=rtol, atol=rtol / 100,
                                 method=method)
        walls.append(time.perf_counter() - start)
        if walls[-1] > 20.0:
            break
    theta, _ = crank_angle(n, result.t)
    error = np.abs(result.joint("pivot0").q + 0.5 * np.pi - theta).max()
    return result.stats["nsteps"], result.stats["nfev"], float(np.median(walls)), error


def main(window_counts=(10, 40, 80)):
    lines = [HEADING, "",
             f"N windows for {T_END:g} s from upright at 1 m/s, through a change point "
             "whenever the cranks pass the horizontal (20 times for N = 10 to 80; the "
             "passages are counted from the closed form for each N); per passage: steps, "
             "right-hand-side evaluations and wall time "
             "(ms); the crank tip's largest error (m); in brackets the one-coordinate "
             "equation as a one-body tree (`pendulum_model`), no loop. "
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}; `python benchmarks/passages.py`.", "",
             "| N | method | rtol | steps / passage | evaluations / passage | "
             "wall / passage (ms) | tip error (m) |",
             "|---|---|---|---|---|---|---|"]
    for n in window_counts:
        system, pendulum = windows_model(n).build(), pendulum_model(n).build()
        theta, _ = crank_angle(n, np.linspace(0.0, T_END, 20001))
        passages = int(np.count_nonzero(np.diff(np.floor(theta / np.pi))))
        for method in METHODS:
            for rtol in RTOLS:
                s, e, w, err = run(system, n, rtol, method)
                ps, pe, pw, perr = run(pendulum, n, rtol, method)
                line = (f"| {n} | {method} | {rtol:.0e} | {s / passages:.1f} ({ps / passages:.1f})"
                        f" | {e / passages:.0f} ({pe / passages:.0f}) | "
                        f"{1e3 * w / passages:.2f} ({1e3 * pw / passages:.2f}) | "
                        f"{err:.1e} ({perr:.1e}) |")
                print(line, flush=True)
                lines.append(line)
    text = "\n".join(lines) + "\n"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "LOOPS.md")
    with open(path) as f:
        old = f.read()
    start = old.find(HEADING)
    if start >= 0:
        end = old.find("\n## ", start + len(HEADING))
        new = old[:start] + text + (old[end + 1:] if end >= 0 else "")
    else:
        new = old.rstrip("\n") + "\n\n" + text
    with open(path + ".tmp", "w") as out:
        out.write(new)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
