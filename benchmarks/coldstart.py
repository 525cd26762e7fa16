"""First-run cost (not a test: run it by hand): the wall time of a script from an empty numba
cache (cold) and right after, from the cache it left (warm), for mbd trees side by side.

Three scripts:
- ``pendulum``: ``examples/pendulum.py`` (a tree without force elements);
- ``one element``: an arm on a hinge with one ``VariableRotationalSpring`` (K = 5, K_min = 2),
  10 s (the force kernels: what every model with force elements compiles first);
- ``demo``: ``python -m mbd demo`` (optional: ``--demo``);
- ``numba controller``: the arm with an ``Actuator`` driven by a ``ContinuousController`` of a
  user's numba ``@njit`` f(t, x, u) on Sensors of the hinge, 10 s (optional:
  ``--controller``; a tree without compiled controllers runs it from Python).

Each tree is given as a folder holding its ``mbd`` package (a checkout, or ``git archive REV |
tar -x -C DIR``). The trees run in turn, round after round, so that the machine's drift hits
them alike: a single cold run here varies by +-5 s, and only interleaved rounds tell a few
seconds apart. Prints the medians.

Usage::

    python benchmarks/coldstart.py TREE [TREE ...] [--rounds 3] [--demo]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ONE_ELEMENT = '''
import numpy as np, mbd
from joints import Revolute
from forces import JointForce, VariableRotationalSpring
model = mbd.Model("arm")
g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
arm = model.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                     cs={"pivot": (0, 0, 0)})
hinge = model.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.3))
model.add(JointForce("spring", hinge, VariableRotationalSpring(K=5.0, K_min=2.0)))
model.build().simulate(10.0)
'''

ONE_CONTROLLER = '''
import numpy as np, mbd
from numba import njit
from joints import Revolute
from forces import Actuator, JointForce

@njit
def pd(t, x, u):
    out = np.empty(1)
    out[0] = -5.0 * u[0] - 0.1 * u[1]
    return x, out

model = mbd.Model("arm")
g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
arm = model.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                     cs={"pivot": (0, 0, 0)})
hinge = model.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.3))
model.add(mbd.Sensor("angle", "hinge.q"))
model.add(mbd.Sensor("rate", "hinge.v"))
pd_controller = model.add(mbd.ContinuousController("pd", pd, ["angle", "rate"]))
model.add(JointForce("motor", hinge, Actuator(pd_controller)))
print(model.build().simulate(10.0).stats["stepper"])
'''


def timed(command, tree, cache, work):
    """Wall time (s) of ``command`` run with ``tree`` first on the path and ``cache`` as numba's
    and mbd's cache folder, in the folder ``work``."""
    env = dict(os.environ, PYTHONPATH=tree, NUMBA_CACHE_DIR=cache, XDG_CACHE_HOME=cache)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=work, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(command)} failed in {tree}:\n{done.stderr[-2000:]}")
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", help="folders holding an mbd package")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--demo", action="store_true", help="time `mbd demo` too")
    parser.add_argument("--controller", action="store_true",
                        help="time a model with one numba controller too")
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="mbd-coldstart-")
    script = os.path.join(work, "one_element.py")
    with open(script, "w") as fh:
        fh.write(ONE_ELEMENT)
    cases = {"pendulum": lambda tree: [sys.executable,
                                       os.path.join(tree, "examples", "pendulum.py")],
             "one element": lambda tree: [sys.executable, script]}
    if args.controller:
        controller = os.path.join(work, "one_controller.py")
        with open(controller, "w") as fh:
            fh.write(ONE_CONTROLLER)
        cases["numba controller"] = lambda tree: [sys.executable, controller]
    if args.demo:
        cases["demo"] = lambda tree: [sys.executable, "-m", "mbd", "demo", "--out",
                                      os.path.join(work, "demo-out")]
    times = {(case, tree, kind): [] for case in cases for tree in args.trees
             for kind in ("cold", "warm")}
    for _ in range(args.rounds):
        for case, command in cases.items():
            for tree in args.trees:
                cache = tempfile.mkdtemp(prefix="mbd-cache-")
                try:
                    for kind in ("cold", "warm"):
                        times[case, tree, kind].append(timed(command(tree), tree, cache,
                                                             work))
                finally:
                    shutil.rmtree(cache)
    for case in cases:
        for tree in args.trees:
            cold, warm = times[case, tree, "cold"], times[case, tree, "warm"]
            print(f"{case:12s} {tree:30s} cold {statistics.median(cold):6.2f} s "
                  f"{[round(x, 1) for x in cold]}  warm {statistics.median(warm):5.2f} s")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
