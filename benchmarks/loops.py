"""Closed loops at scale (issue 24): the cost of one right-hand-side evaluation against the
number of bodies and loops, mbd against Pinocchio's constraintDynamics (C++) and MuJoCo's
mj_forward (soft equality constraints), on the same models in the same run.

* the windows of :mod:`windows` (IFToMM A02 generalised: N loops in a chain, 2N + 1 bodies),
  N = 5 to 160, with the fitted growth exponent of each engine's cost;
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

from windows import G, fourbars_model, windows_model  # noqa: E402

from mbd import statefunction as sf  # noqa: E402

ROUNDS = 7


def _median_time(call, budget=0.05):
    """Median over ROUNDS of the time of one call (s), batches sized to ``budget`` s."""
    call()
    start = time.perf_counter()
    call()
    once = max(time.perf_counter() - start, 1e-7)
    batch = max(1, int(budget / once))
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(batch):
            call()
        times.append((time.perf_counter() - start) / batch)
    return float(np.median(times))


def mbd_evaluation(model):
    """Seconds per evaluation of mbd's compiled right-hand side at the assembled start."""
    system = model.build()
    result = system.simulate(1e-6, output_step=1e-6)
    y = np.concatenate([result.q[0], result.v[0]])
    sd = sf.state_data(system)
    dy = np.empty_like(y)
    return _median_time(lambda: sd.call(sd.rhs, 0.0, y, dy, sd.data))


def pinocchio_windows(n):
    """Seconds per constraintDynamics evaluation of n windows (cranks on the universe,
    couplers on the cranks, each window closed by a CONTACT_3D at the next crank's tip)."""
    import pinocchio as pin
    model = pin.Model()
    model.gravity.linear = np.array([0.0, -G, 0.0])
    z = pin.JointModelRZ()
    rod_y = np.diag([1 / 12, 1e-4, 1 / 12])
    rod_x = np.diag([1e-4, 1 / 12, 1 / 12])
    cranks, couplers = [], []
    for i in range(n + 1):
        j = model.addJoint(0, z, pin.SE3(np.eye(3), np.array([float(i), 0, 0])), f"p{i}")
        model.appendBodyToJoint(j, pin.Inertia(1.0, np.array([0, 0.5, 0]), rod_y),
                                pin.SE3.Identity())
        cranks.append(j)
    for i in range(n):
        j = model.addJoint(cranks[i], z, pin.SE3(np.eye(3), np.array([0, 1.0, 0])), f"l{i}")
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
    v = np.zeros(model.nv)
    v[:n + 1] = -1.0
    v[n + 1:] = 1.0
    tau = np.zeros(model.nv)
    return _median_time(lambda: pin.constraintDynamics(model, data, q, v, tau, models, datas,
                                                       settings))


def mujoco_windows(n):
    """Seconds per mj_forward of n windows (equality connects at the cranks' tips)."""
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
    xml = (f'<mujoco><option gravity="0 {-G} 0" integrator="RK4"><flag contact="disable"/>'
           f'</option><worldbody>{"".join(bodies)}</worldbody>'
           f'<equality>{"".join(eqs)}</equality></mujoco>')
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qvel[:] = 1.0
    return _median_time(lambda: mujoco.mj_forward(model, data))


def _peer(run, n):
    try:
        return run(n)
    except ImportError:
        return float("nan")


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
