"""Throughput of the tree dynamics on an N-link spatial chain (not a test: run it by hand).

The chain of issue 7: N uniform rods of 1 m and 1 kg hanging from a ground, revolute axes
alternating x and y, every angle 0.3 rad at rest, g = 9.81 m/s^2.

Reports, as medians of repeated runs:
- the cost of one acceleration evaluation inside a compiled loop (as the compiled integrator
  pays it): ABA in world and in link coordinates, CRBA + Cholesky, the whole right-hand side;
  and the right-hand side called from Python as scipy calls it;
- wall time per simulated second with DOP853 at rtol = atol = 1e-8;
- the numba compile time of a first run (empty cache) and of a cached run, each measured in a
  fresh interpreter;
- the scaling of one ABA evaluation for N = 10 ... 400 and its fitted exponent.

Usage::

    python benchmarks/chain.py            # N = 2, 10 and 50
    python benchmarks/chain.py 10 50 100  # any sizes
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import mbd
from joints import Revolute
from mbd.compiled import articulated, jointspace, kinematics, layout, statekernels
from mbd.compiled.jit.jitcache import njit
from mbd.run.evaluator import Evaluator
from mbd.run.simulate import rhs_function


def build_chain(n, angle=0.3):
    """The N-link chain Model: rods along -z, revolute axes alternating x and y."""
    model = mbd.Model(f"chain{n}")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    rod = np.diag([1.0 / 12.0, 1.0 / 12.0, 1e-6])  # slender 1 kg, 1 m rod about its CG
    base = ground
    for i in range(n):
        body = model.add_body(f"rod{i}", mass=1.0, cg=(0.0, 0.0, -i - 0.5), inertia=rod,
                              cs={"top": (0.0, 0.0, -i), "bottom": (0.0, 0.0, -i - 1.0)})
        axis = (1.0, 0.0, 0.0) if i % 2 == 0 else (0.0, 1.0, 0.0)
        model.add(Revolute(f"j{i}", base, body["top"], axis=axis, q0=angle))
        base = body["bottom"]
    return model


def median_time(fn, repeats, inner):
    """Median over ``repeats`` of the mean time of ``inner`` calls of ``fn``, s."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - start) / inner)
    return statistics.median(samples)


# the kernels repeated inside compiled loops: their cost without Python's call overhead, as
# the compiled integrator pays it

@njit()
def _repeat_aba_world(n, q, v, tau, tree, links, scratch, qdd):
    for _ in range(n):
        kinematics.link_transforms(q, tree, links, scratch)
        articulated.aba_world(v, tau, tree, links, scratch, qdd)


@njit()
def _repeat_aba_link(n, q, v, tau, tree, links, scratch, qdd):
    for _ in range(n):
        kinematics.link_velocities(q, v, tree, links, scratch)
        articulated.aba(v, tau, tree, links, scratch, qdd)


@njit()
def _repeat_crba(n, q, v, tau, tree, links, scratch, qdd, H, rhs):
    for _ in range(n):
        kinematics.link_velocities(q, v, tree, links, scratch)
        for k in range(qdd.shape[0]):
            qdd[k] = 0.0
        jointspace.rnea(qdd, tree, links, scratch, rhs)
        for k in range(rhs.shape[0]):
            rhs[k] = tau[k] - rhs[k]
        jointspace.crba(tree, links, scratch, H)
        jointspace.cholesky_solve(H, rhs, qdd)


@njit()
def _repeat_rhs(n, y, dy, data):
    for _ in range(n):
        statekernels.tree_free_world(0.0, y, dy, data)


def evaluation_costs(system, inner=2000, repeats=7):
    """Median seconds per evaluation, inside a compiled loop: world-frame ABA (the
    integrator's, with the poses), link-frame ABA, CRBA + Cholesky, and the whole right-hand
    side; and the right-hand side called from Python as scipy calls it."""
    tree = system.tree
    links, scratch = layout.records(layout.LINK_STATE, system.n_links), \
        layout.records(layout.SCRATCH, 1)
    state = system.initial_state()
    q, v = state.q, np.full(system.nv, 0.1)
    tau = np.zeros(system.nv)
    qdd = np.zeros(system.nv)
    H, rhs = np.zeros((system.nv, system.nv)), np.zeros(system.nv)
    fun = rhs_function(system)
    data = Evaluator(system).data
    y = np.concatenate([q, v])
    dy = np.zeros_like(y)
    return {
        "aba_world": median_time(lambda: _repeat_aba_world(inner, q, v, tau, tree, links,
                                                           scratch, qdd), repeats, 1) / inner,
        "aba_link": median_time(lambda: _repeat_aba_link(inner, q, v, tau, tree, links, scratch,
                                                         qdd), repeats, 1) / inner,
        "crba": median_time(lambda: _repeat_crba(inner, q, v, tau, tree, links, scratch, qdd, H,
                                                 rhs), repeats, 1) / inner,
        "rhs": median_time(lambda: _repeat_rhs(inner, y, dy, data), repeats, 1) / inner,
        "rhs_python": median_time(lambda: fun(0.0, y), repeats, inner),
    }


def scaling(sizes=(10, 20, 50, 100, 200, 400)):
    """Seconds per world-frame ABA evaluation for each N, and the exponent p of the
    least-squares fit t = c N^p over the sizes."""
    times = []
    for n in sizes:
        system = build_chain(n).build()
        times.append(evaluation_costs(system, inner=max(20, 20000 // n), repeats=5)["aba_world"])
    p = np.polyfit(np.log(sizes), np.log(times), 1)[0]
    return list(zip(sizes, times)), p


def run_time_per_second(system, t_end, repeats=3):
    """Median wall time per simulated second (s/s) and the run's statistics."""
    walls, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = system.simulate(t_end=t_end, output_step=0.01, rtol=1e-8, atol=1e-8)
        walls.append(time.perf_counter() - start)
    return statistics.median(walls) / t_end, result


_FIRST_RUN = """
import time
t0 = time.perf_counter()
import sys; sys.path.insert(0, {bench!r})
from chain import build_chain
s = build_chain(3).build()
s.simulate(t_end=0.01, output_step=0.01)
print(time.perf_counter() - t0)
"""


def compile_times():
    """Seconds to import mbd and run a tiny model in a fresh interpreter: empty numba cache
    (compilation) and then warm cache (loading), each in its own process."""
    bench = os.path.dirname(os.path.abspath(__file__))
    code = _FIRST_RUN.format(bench=bench)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        cold, warm = (float(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                           capture_output=True, text=True).stdout)
                      for _ in range(2))
    return cold, warm


def main(sizes):
    cold, warm = compile_times()
    print(f"first run, empty numba cache: {cold:.1f} s; cached run: {warm:.2f} s "
          "(fresh interpreter: import + build + 0.01 s simulation)")
    print()
    tables(sizes)


def tables(sizes):
    """Print the per-evaluation cost table for ``sizes`` and the scaling line."""
    print("Cost of one evaluation inside a compiled loop (median of 7), and the right-hand side "
          "called from Python:")
    print()
    print("| N | ABA, world frame | ABA, link frame | CRBA + Cholesky | whole RHS | "
          "RHS from Python | wall / simulated s (rtol 1e-8) | RHS evals / s | energy drift |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        system = build_chain(n).build()
        c = evaluation_costs(system)
        t_end = 10.0 if n <= 10 else 2.5
        per_second, result = run_time_per_second(system, t_end)
        e = result.energy()
        drift = np.abs(e - e[0]).max() / np.abs(e).max()
        print(f"| {n} | {c['aba_world'] * 1e6:.2f} µs | {c['aba_link'] * 1e6:.2f} µs | "
              f"{c['crba'] * 1e6:.2f} µs | {c['rhs'] * 1e6:.2f} µs | "
              f"{c['rhs_python'] * 1e6:.2f} µs | {per_second * 1e3:.1f} ms | "
              f"{result.stats['nfev'] / t_end:.0f} | {drift:.1e} |")
    print()
    points, p = scaling()
    print("Scaling of one ABA evaluation (world frame, with the poses): "
          + ", ".join(f"N = {n}: {t * 1e6:.1f} µs" for n, t in points)
          + f"; fitted exponent t ~ N^{p:.2f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [2, 10, 50])
