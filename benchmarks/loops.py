"""Closed loops at scale (issue 24): the cost of one right-hand-side evaluation against the
number of bodies and loops, mbd against Pinocchio's constraintDynamics (C++) and MuJoCo's
mj_forward (soft equality constraints), on the same models in the same run.

* the windows of :mod:`windows` (IFToMM A02 generalised: N loops in a chain, 2N + 1 bodies),
  N = 5 to 160, with the fitted growth exponent of each engine's cost;
* the same windows simulated for SPAN s from the upright start, through the first change
  point (all links on the x-axis at t = 0.71 s), at two accuracies: mbd (compiled DOP853),
  Pinocchio's constraintDynamics under scipy's DOP853 at the same tolerances, and MuJoCo's RK4
  at two fixed steps; the wall time per simulated second and the crank angle's error at the
  end against the closed form (:func:`windows.crank_angle`);
* K separate grounded four-bars (K machines, one loop each), K = 1 to 40: the cost per
  machine.

Run ``python benchmarks/loops.py`` (the peers from ``pip install -e '.[bench]'``); it prints a
Markdown table and writes it to ``benchmarks/LOOPS.md``. Each figure is the median of 7
rounds, each timing a batch of evaluations at the start state.
"""
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import median_call  # noqa: E402
from windows import G, crank_angle, fourbars_model, windows_model  # noqa: E402

from mbd.run.evaluator import Evaluator  # noqa: E402

ROUNDS = 7
#: simulated span of the work-precision runs, s (the first change point is at 0.71 s)
SPAN = 1.0
#: the tolerances of the variable-step runs and MuJoCo's fixed steps (s)
TOLERANCES = (1e-6, 1e-9)
MUJOCO_STEPS = (1e-3, 1e-4)


def _median_time(call, budget=0.05):
    """Median over ROUNDS of the time of one call (s), batches sized to ``budget`` s."""
    return median_call(call, budget, ROUNDS)


def mbd_evaluation(model):
    """Seconds per evaluation of mbd's compiled right-hand side at the assembled start."""
    system = model.build()
    result = system.simulate(1e-6, output_step=1e-6)
    y = np.concatenate([result.q[0], result.v[0]])
    ev = Evaluator(system)
    dy = np.empty_like(y)
    return _median_time(lambda: ev.call(ev.rhs, 0.0, y, dy, ev.data))


def _pinocchio_model(n):
    """Pinocchio's n windows (cranks on the universe, couplers on the cranks, each window
    closed by a CONTACT_3D at the next crank's tip): (pin, model, data, constraint models and
    datas, settings, q, v) at the upright start, the first crank's tip at 1 m/s in +x."""
    import pinocchio as pin
    model = pin.Model()
    model.gravity.linear = np.array([0.0, -G, 0.0])
    z = pin.JointModelRZ()
    rod_y = np.diag([1 / 12, 1e-4, 1 / 12])
    rod_x = np.diag([1e-4, 1 / 12, 1 / 12])
    # depth first (crank 0, its coupler, crank 1, ...): Pinocchio's algorithms take every
    # joint's subtree to be a contiguous run of coordinates
    cranks, couplers = [], []
    for i in range(n + 1):
        j = model.addJoint(0, z, pin.SE3(np.eye(3), np.array([float(i), 0, 0])), f"p{i}")
        model.appendBodyToJoint(j, pin.Inertia(1.0, np.array([0, 0.5, 0]), rod_y),
                                pin.SE3.Identity())
        cranks.append(j)
        if i < n:
            j = model.addJoint(j, z, pin.SE3(np.eye(3), np.array([0, 1.0, 0])), f"l{i}")
            model.appendBodyToJoint(j, pin.Inertia(1.0, np.array([0.5, 0, 0]), rod_x),
                                    pin.SE3.Identity())
            couplers.append(j)
    models = pin.StdVec_RigidConstraintModel()
    for i in range(n):
        models.append(pin.RigidConstraintModel(
            pin.ContactType.CONTACT_3D, model, couplers[i], pin.SE3(np.eye(3), np.array(
                [1.0, 0, 0])), cranks[i + 1], pin.SE3(np.eye(3), np.array([0, 1.0, 0])),
            pin.ReferenceFrame.LOCAL))
    data = model.createData()
    datas = pin.StdVec_RigidConstraintData()
    for c in models:
        datas.append(c.createData())
    pin.initConstraintDynamics(model, data, models, datas)
    settings = pin.ProximalSettings(1e-12, 1e-12, 1e-8, 10)
    q = np.zeros(model.nq)
    # cranks at -1 rad/s, couplers turning back at +1 rad/s (they stay level)
    v = np.array([-1.0 if k % 2 == 0 else 1.0 for k in range(model.nv)])
    return pin, model, data, models, datas, settings, q, v


def pinocchio_windows(n):
    """Seconds per constraintDynamics evaluation of n windows."""
    pin, model, data, models, datas, settings, q, v = _pinocchio_model(n)
    tau = np.zeros(model.nv)
    return _median_time(lambda: pin.constraintDynamics(model, data, q, v, tau, models, datas,
                                                       settings))


def pinocchio_windows_run(n, rtol):
    """(wall s per simulated s, crank angle error at SPAN) of n windows: constraintDynamics
    under scipy's DOP853 at rtol = atol (no projection: the drift over SPAN is below the
    tolerance)."""
    from scipy.integrate import solve_ivp
    pin, model, data, models, datas, settings, q, v = _pinocchio_model(n)
    tau = np.zeros(model.nv)
    nq = model.nq

    def rhs(t, y):
        a = pin.constraintDynamics(model, data, y[:nq], y[nq:], tau, models, datas, settings)
        return np.concatenate([y[nq:], a])

    def run():
        return solve_ivp(rhs, (0.0, SPAN), np.concatenate([q, v]), method="DOP853",
                         rtol=rtol, atol=rtol)
    sol = run()
    wall = _median_run(run)
    return wall / SPAN, abs(sol.y[0, -1] + 0.5 * np.pi - crank_angle(n, [SPAN])[0][0])


def _mujoco_model(n, step=1e-3):
    """MuJoCo's n windows (equality connects at the cranks' tips), RK4 at ``step`` s, at the
    upright start with the first crank's tip at 1 m/s in +x: (mujoco, model, data)."""
    import mujoco
    bodies, eqs = [], []
    for i in range(n + 1):
        inner = ""
        if i < n:
            inner = (f'<body name="c{i}" pos="0 1 0"><joint type="hinge" axis="0 0 1"/>'
                     f'<inertial pos="0.5 0 0" mass="1" diaginertia="1e-4 0.0833 0.0833"/>'
                     f'</body>')
        bodies.append(f'<body name="k{i}" pos="{i} 0 0"><joint type="hinge" axis="0 0 1"/>'
                      f'<inertial pos="0 0.5 0" mass="1" diaginertia="0.0833 1e-4 0.0833"/>'
                      f'{inner}</body>')
        if i < n:
            eqs.append(f'<connect body1="c{i}" body2="k{i + 1}" anchor="1 0 0"/>')
    xml = (f'<mujoco><option gravity="0 {-G} 0" integrator="RK4" timestep="{step}">'
           f'<flag contact="disable"/></option><worldbody>{"".join(bodies)}</worldbody>'
           f'<equality>{"".join(eqs)}</equality></mujoco>')
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    # joints depth first: crank 0, coupler 0, crank 1, ...; cranks at -1 rad/s, couplers
    # turning back at +1 rad/s (they stay level)
    data.qvel[:] = [-1.0 if k % 2 == 0 else 1.0 for k in range(model.nv)]
    return mujoco, model, data


def mujoco_windows(n):
    """Seconds per mj_forward of n windows."""
    mujoco, model, data = _mujoco_model(n)
    return _median_time(lambda: mujoco.mj_forward(model, data))


def mujoco_windows_run(n, step):
    """(wall s per simulated s, crank angle error at SPAN) of n windows under MuJoCo's RK4 at
    the fixed ``step`` (s)."""
    mujoco, model, data = _mujoco_model(n, step)
    steps = int(round(SPAN / step))
    start_q, start_v = data.qpos.copy(), data.qvel.copy()

    def run():
        mujoco.mj_resetData(model, data)
        data.qpos[:], data.qvel[:] = start_q, start_v
        for _ in range(steps):
            mujoco.mj_step(model, data)
        return data.qpos[0]
    angle = run()
    wall = _median_run(run)
    return wall / SPAN, abs(angle + 0.5 * np.pi - crank_angle(n, [SPAN])[0][0])


def mbd_windows_run(n, rtol):
    """(wall s per simulated s, crank angle error at SPAN) of n windows: mbd's compiled
    DOP853 at rtol = atol, one output row at the end."""
    system = windows_model(n).build()

    def run():
        return system.simulate(SPAN, output_step=SPAN, rtol=rtol, atol=rtol)
    result = run()
    wall = _median_run(run)
    angle = result.joint("pivot0").q[-1] + 0.5 * np.pi
    return wall / SPAN, abs(angle - crank_angle(n, [SPAN])[0][0])


def _median_run(run, rounds=3):
    """Median wall time (s) of ``rounds`` calls of a whole run."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _peer(run, *args, missing=float("nan")):
    """run(*args), or ``missing`` where the peer is not installed."""
    try:
        return run(*args)
    except ImportError:
        return missing


def exponent(ns, times):
    """The fitted growth exponent p of time ~ n^p (least squares in log-log)."""
    ns, times = np.asarray(ns, dtype=float), np.asarray(times, dtype=float)
    ok = np.isfinite(times)
    return float(np.polyfit(np.log(ns[ok]), np.log(times[ok]), 1)[0]) if ok.sum() > 1 \
        else float("nan")


def main(window_counts=(5, 10, 20, 40, 80, 160), machine_counts=(1, 5, 10, 20, 40)):
    lines = [f"# Closed loops at scale ({platform.processor() or platform.machine()}, "
             f"{time.strftime('%Y-%m-%d')})", "",
             "Per right-hand-side evaluation at the start state, median of "
             f"{ROUNDS} rounds; `python benchmarks/loops.py`.", "",
             "## Windows (N loops in a chain, 2N + 1 bodies)", "",
             "| N | bodies | mbd (us) | Pinocchio constraintDynamics (us) | MuJoCo mj_forward "
             "(us) | mbd / Pinocchio | mbd / MuJoCo |", "|---|---|---|---|---|---|---|"]
    rows = []
    for n in window_counts:
        t_mbd = mbd_evaluation(windows_model(n))
        t_pin, t_mj = _peer(pinocchio_windows, n), _peer(mujoco_windows, n)
        rows.append((n, t_mbd, t_pin, t_mj))
        lines.append(f"| {n} | {2 * n + 1} | {t_mbd * 1e6:.1f} | {t_pin * 1e6:.1f} | "
                     f"{t_mj * 1e6:.1f} | {t_mbd / t_pin:.2f} | {t_mbd / t_mj:.2f} |")
        print(lines[-1], flush=True)
    ns = [r[0] for r in rows]
    lines += ["", "Fitted growth exponent (time ~ N^p): "
              f"mbd {exponent(ns, [r[1] for r in rows]):.2f}, "
              f"Pinocchio {exponent(ns, [r[2] for r in rows]):.2f}, "
              f"MuJoCo {exponent(ns, [r[3] for r in rows]):.2f}.", "",
              f"## Windows simulated for {SPAN:g} s, through a change point", "",
              "Wall time per simulated second (median of 3 runs) and the crank angle's error "
              f"at t = {SPAN:g} s against the closed form. mbd and Pinocchio at rtol = atol = "
              "tol, MuJoCo RK4 at a fixed step.", "",
              "| N | engine | setting | wall per simulated s (ms) | error (rad) |",
              "|---|---|---|---|---|"]
    runs = {}
    for n in window_counts:
        for tol, step in zip(TOLERANCES, MUJOCO_STEPS):
            for engine, setting, (wall, err) in (
                    ("mbd (compiled DOP853)", f"tol = {tol:g}", mbd_windows_run(n, tol)),
                    ("Pinocchio constraintDynamics + scipy DOP853", f"tol = {tol:g}",
                     _peer(pinocchio_windows_run, n, tol, missing=(np.nan, np.nan))),
                    ("MuJoCo RK4", f"dt = {step:g}",
                     _peer(mujoco_windows_run, n, step, missing=(np.nan, np.nan)))):
                runs.setdefault((engine, setting), []).append(wall)
                lines.append(f"| {n} | {engine} | {setting} | {wall * 1e3:.2f} | {err:.1e} |")
                print(lines[-1], flush=True)
    fits = ", ".join(f"{engine} at {setting}: {exponent(window_counts, walls):.2f}"
                     for (engine, setting), walls in runs.items())
    lines += ["", f"Fitted growth exponent of the wall time per simulated second: {fits}.", "",
              "## K separate grounded four-bars (K machines, one loop each)", "",
              "| K | mbd (us) | per machine (us) |", "|---|---|---|"]
    for k in machine_counts:
        t = mbd_evaluation(fourbars_model(k))
        lines.append(f"| {k} | {t * 1e6:.1f} | {t * 1e6 / k:.2f} |")
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "LOOPS.md")
    with open(path + ".tmp", "w") as out:
        out.write(text)
    os.replace(path + ".tmp", path)
    print(text)


if __name__ == "__main__":
    main()
