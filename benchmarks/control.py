"""What a signal costs (issue 26; not a test: run it by hand): the cost of one right-hand-side
evaluation of a pendulum whose spring's stiffness is a constant (the built-in law), a numba
function K(t), a Table K(t) or a Python function K(t); of a table force law against the
linear spring it tabulates; and of the same spring made by a continuous controller (a Gain,
a numba controller, a Python one) reading the hinge angle through a Sensor and driving an
Actuator. Writes benchmarks/CONTROL.md.

The model: a 1 kg, 1 m arm on a hinge (no gravity) with a ``VariableRotationalSpring`` of
K = 5 N m/rad (K_min = 2) from 0.3 rad, 20 s at rtol = atol = 1e-10. Every K(t) variant
returns the same 5.0 at every t (a numba ``5.0 + 0.0 * t``, a Table through (0, 5) and (20,
5), a Python lambda), so that every run takes the very same steps and only the evaluation's
cost differs: the wall time of a run (after a first run that compiles) divided by its
right-hand-side evaluations, median of 15 runs. The table force law: ``TableForce`` of the
linear table through (-1, -5) and (1, 5) against ``Spring(c=5)``, both compiled. The
controllers: ``Gain([-5], [angle])``, a ``ContinuousController`` of a numba ``f(t, x, u) ->
(x, [-5 u0])`` and of the same f as a plain Python function, each driving
``Actuator(controller)``, against ``Spring(c=5)`` (the same force, -5 q).

For the record, the LQR cart-pole of ``examples/cart_pole_lqr.py`` closed by a ``Gain`` (a
continuous controller, compiled: the compiled DOP853 loop), 5 s from a 0.2 rad tilt at
rtol 1e-10, against the same loop on the linear plant,
x' = (A - B K) x, by scipy's solve_ivp (DOP853, same tolerances) and scipy.signal.lsim: the
wall time of each (median of 3).

Usage::

    python benchmarks/control.py           # prints and writes benchmarks/CONTROL.md
"""
import os
import statistics
import time

import numpy as np
import scipy.integrate
import scipy.signal
from numba import njit

import mbd
from forces import Actuator, JointForce, Spring, TableForce, VariableRotationalSpring
from joints import Revolute

HERE = os.path.dirname(os.path.abspath(__file__))
T_END, TOL, REPEATS = 20.0, 1e-10, 15


@njit
def constant_stiffness(t):
    return 5.0 + 0.0 * t


@njit
def numba_spring(t, x, u):
    out = np.empty(1)
    out[0] = -5.0 * u[0]
    return x, out


def python_spring(t, x, u):
    return x, np.array([-5.0 * u[0]])


def pendulum(law):
    """The arm on its hinge with ``law`` on the hinge, built; ``law`` may be a continuous
    controller, which then reads the hinge angle (Sensor ``angle``) and drives an Actuator."""
    model = mbd.Model("arm")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    arm = model.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                         cs={"pivot": (0, 0, 0)})
    hinge = model.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.3))
    if isinstance(law, mbd.ContinuousController) or isinstance(law, mbd.Gain):
        model.add(mbd.Sensor("angle", "hinge.q"))
        law = Actuator(model.add(law))
    model.add(JointForce("spring", hinge, law))
    return model.build()


def per_evaluation(system):
    """(us per right-hand-side evaluation, the stepper, nfev): median of REPEATS runs."""
    run = dict(output_step=0.1, rtol=TOL, atol=TOL)
    first = system.simulate(T_END, **run)        # compiles
    system.simulate(T_END, **run)                # (the first timed run of a process was slow)
    walls = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = system.simulate(T_END, **run)
        walls.append(time.perf_counter() - start)
    assert result.stats["nfev"] == first.stats["nfev"]
    return 1e6 * statistics.median(walls) / result.stats["nfev"], result.stats["stepper"], \
        result.stats["nfev"]


def lqr_loop():
    """[(label, wall time s)]: the cart-pole's closed loop in mbd, and on its linear plant in
    scipy."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "cart_pole_lqr", os.path.join(HERE, "..", "examples", "cart_pole_lqr.py"))
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    K, A, B = example.design()
    system = example.build_model().build()
    closed = A - B @ K
    x0 = np.array([0.0, example.TILT, 0.0, 0.0])
    t = np.linspace(0.0, 5.0, 501)

    def timed(fn):
        fn()
        walls = []
        for _ in range(3):
            start = time.perf_counter()
            fn()
            walls.append(time.perf_counter() - start)
        return statistics.median(walls)
    return [("mbd: the nonlinear cart-pole, Gain compiled (compiled DOP853)",
             timed(lambda: system.simulate(5.0, output_step=0.01, rtol=1e-10, atol=1e-12))),
            ("scipy solve_ivp (DOP853) of the linear closed loop",
             timed(lambda: scipy.integrate.solve_ivp(lambda _, x: closed @ x, (0.0, 5.0), x0,
                                                     method="DOP853", t_eval=t, rtol=1e-10,
                                                     atol=1e-12))),
            ("scipy.signal.lsim of the linear closed loop",
             timed(lambda: scipy.signal.lsim((closed, np.zeros((4, 1)), np.eye(4),
                                              np.zeros((4, 1))), np.zeros_like(t), t, x0)))]


def main():
    table_of_time = mbd.Table([0.0, T_END], [5.0, 5.0])
    # (label, law, the built-in law it is compared with)
    cases = [("built-in: K = 5 (constant)", VariableRotationalSpring(K=5.0, K_min=2.0), "K"),
             ("numba K(t) (@njit)", VariableRotationalSpring(K=constant_stiffness, K_min=2.0),
              "K"),
             ("Table K(t)", VariableRotationalSpring(K=table_of_time, K_min=2.0), "K"),
             ("Python K(t) (lambda)", VariableRotationalSpring(K=lambda t: 5.0, K_min=2.0),
              "K"),
             ("built-in: Spring(c=5)", Spring(c=5.0), "spring"),
             ("TableForce (2-point linear table)",
              TableForce(mbd.Table([-1.0, 1.0], [-5.0, 5.0], extrapolate="linear")), "spring"),
             ("Gain controller (u = -5 angle)", mbd.Gain("c", [-5.0], ["angle"]), "spring"),
             ("numba controller (@njit f(t, x, u))",
              mbd.ContinuousController("c", numba_spring, ["angle"]), "spring"),
             ("Python controller (plain f(t, x, u))",
              mbd.ContinuousController("c", python_spring, ["angle"]), "spring")]
    # a first model, thrown away: the compiling helper process started by the first run
    # goes on in the background for a while and would slow the first case
    per_evaluation(pendulum(Spring(c=1.0)))
    time.sleep(5.0)
    rows, built_in = [], {}
    for label, law, kind in cases:
        us, stepper, nfev = per_evaluation(pendulum(law))
        reference = built_in.setdefault(kind, us)       # the first of each kind is built-in
        rows.append((label, stepper, nfev, us, us / reference))
        print(f"{label:38s} {stepper:8s} nfev {nfev:6d}  {us:7.3f} us/eval  "
              f"{us / reference:6.2f}x")
    lqr = lqr_loop()
    for label, wall in lqr:
        print(f"{label:58s} {wall * 1e3:9.1f} ms")
    lines = ["# What a signal costs (benchmarks/control.py)", "",
             __doc__.split("Usage::")[0].strip(), "",
             "| law | stepper | evaluations | us per evaluation | vs its built-in law |",
             "|---|---|---|---|---|"]
    lines += [f"| {label} | {stepper} | {nfev} | {us:.3f} | {ratio:.2f}x |"
              for label, stepper, nfev, us, ratio in rows]
    lines += ["", "| LQR cart-pole, 5 s | wall time (ms) |", "|---|---|"]
    lines += [f"| {label} | {wall * 1e3:.1f} |" for label, wall in lqr]
    with open(os.path.join(HERE, "CONTROL.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
