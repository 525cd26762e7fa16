"""mbd against peer engines on the N-link spatial chain of issue 7 (not a test: run it by hand).

The chain: N uniform rods of 1 m and 1 kg hanging from a ground along -z, revolute axes
alternating x and y (link 0 about x), every angle 0.3 rad at rest, g = 9.81 m/s^2. Every engine
gets the same rod inertia about the CG, diag(1/12, 1/12, 1e-6) kg m^2.

For each engine, ``run_<engine>(n, t_end, setting)`` returns
``(final joint angles (n,), wall seconds, RHS evaluations or steps, energy drift |E(t_end) - E(0)| J)``.
The setting is rtol = atol for the variable-step engines and the time step for MuJoCo.

A converged reference per N is mbd at rtol = atol = 1e-13, checked against Pinocchio's ABA under
scipy's DOP853 at the same tolerance. Each engine's setting is then swept from loose to tight;
the cheapest setting whose max |final angle - reference| is below 1e-3 rad (and below 1e-6 rad)
is timed again (median of 3, after the sweep's run served as warm-up).

Usage::

    pip install -e '.[bench]'
    python benchmarks/peers.py            # N = 2, 10, 50
    python benchmarks/peers.py 2 10       # any sizes
"""
import os
import platform
import statistics
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chain import build_chain  # noqa: E402

ANGLE = 0.3
GRAVITY = 9.81
ROD_INERTIA = np.diag([1.0 / 12.0, 1.0 / 12.0, 1e-6])  # about the CG, kg m^2
TOLS = [10.0 ** (-k / 4) for k in range(12, 49)]        # 1e-3 ... 1e-12 by quarter decades
STEPS = [1e-1, 5e-2, 2e-2, 1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5, 2e-5, 1e-5]
THRESHOLDS = (1e-3, 1e-6)
SLOW = 60.0   # s: a run longer than this is the last one tried for that engine
REF_TOL = 1e-13


def t_end_for(n):
    """The scored time: 10 s up to N = 10, 2.5 s beyond."""
    return 10.0 if n <= 10 else 2.5


def axis_of(i):
    """Link i turns about x (even i) or y (odd i)."""
    return (1.0, 0.0, 0.0) if i % 2 == 0 else (0.0, 1.0, 0.0)


# ---------------------------------------------------------------- mbd

_MBD = {}


def run_mbd(n, t_end, tol):
    """mbd, DOP853 at rtol = atol = tol (its compiled integrator loop, the default)."""
    system = _MBD.get(n)
    if system is None:
        system = _MBD[n] = build_chain(n, ANGLE).build()
    start = time.perf_counter()
    result = system.simulate(t_end, output_step=t_end, rtol=tol, atol=tol, method="DOP853")
    wall = time.perf_counter() - start
    e = result.energy()
    return np.array(result.q[-1]), wall, int(result.stats["nfev"]), abs(e[-1] - e[0])


# ---------------------------------------------------------------- Pinocchio

def pinocchio_chain(n):
    """The chain as a pinocchio.Model: joint i sits 1 m below joint i-1."""
    import pinocchio as pin
    model = pin.Model()
    model.gravity.linear = np.array([0.0, 0.0, -GRAVITY])
    parent = 0
    for i in range(n):
        placement = pin.SE3(np.eye(3), np.array([0.0, 0.0, 0.0 if i == 0 else -1.0]))
        joint = pin.JointModelRX() if i % 2 == 0 else pin.JointModelRY()
        parent = model.addJoint(parent, joint, placement, f"j{i}")
        model.appendBodyToJoint(parent, pin.Inertia(1.0, np.array([0.0, 0.0, -0.5]), ROD_INERTIA),
                                pin.SE3.Identity())
    return model


def pinocchio_energy(model, data, q, v):
    import pinocchio as pin
    return pin.computeKineticEnergy(model, data, q, v) + pin.computePotentialEnergy(model, data, q)


def run_pinocchio(n, t_end, tol):
    """Pinocchio's ABA (C++) as the right-hand side of scipy's DOP853 at rtol = atol = tol."""
    import pinocchio as pin
    model = pinocchio_chain(n)
    data = model.createData()
    tau = np.zeros(n)
    aba = pin.aba

    def rhs(t, y):
        q, v = y[:n], y[n:]
        return np.concatenate([v, aba(model, data, q, v, tau)])

    y0 = np.concatenate([np.full(n, ANGLE), np.zeros(n)])
    start = time.perf_counter()
    sol = solve_ivp(rhs, (0.0, t_end), y0, method="DOP853", rtol=tol, atol=tol, t_eval=[t_end])
    wall = time.perf_counter() - start
    y1 = sol.y[:, -1]
    drift = abs(pinocchio_energy(model, data, y1[:n], y1[n:]) - pinocchio_energy(model, data, y0[:n], y0[n:]))
    return y1[:n].copy(), wall, int(sol.nfev), drift


# ---------------------------------------------------------------- MuJoCo

def mujoco_xml(n, dt, integrator="RK4"):
    """The chain as MJCF: nested bodies, hinge joints, explicit inertials, no geoms (so no
    contacts), no damping or armature."""
    inertia = " ".join(repr(float(x)) for x in np.diag(ROD_INERTIA))
    body = ""
    for i in reversed(range(n)):
        pos = "0 0 0" if i == 0 else "0 0 -1"
        axis = " ".join(str(a) for a in axis_of(i))
        body = (f'<body name="rod{i}" pos="{pos}">'
                f'<joint name="j{i}" type="hinge" axis="{axis}" pos="0 0 0" damping="0" armature="0"/>'
                f'<inertial pos="0 0 -0.5" mass="1" diaginertia="{inertia}"/>'
                f'{body}</body>')
    return (f'<mujoco model="chain{n}">'
            f'<compiler angle="radian" inertiafromgeom="false" balanceinertia="false" '
            f'boundmass="0" boundinertia="0"/>'
            f'<option timestep="{dt!r}" integrator="{integrator}" gravity="0 0 {-GRAVITY!r}">'
            f'<flag contact="disable" energy="enable"/></option>'
            f'<worldbody>{body}</worldbody></mujoco>')


def run_mujoco(n, t_end, dt, integrator="RK4"):
    """MuJoCo with a fixed time step dt; the 'RHS evaluations' column counts steps."""
    import mujoco
    model = mujoco.MjModel.from_xml_string(mujoco_xml(n, dt, integrator))
    data = mujoco.MjData(model)
    data.qpos[:] = ANGLE
    data.qvel[:] = 0.0
    mujoco.mj_forward(model, data)
    e0 = data.energy.sum()
    nstep = int(round(t_end / dt))
    start = time.perf_counter()
    mujoco.mj_step(model, data, nstep)
    wall = time.perf_counter() - start
    mujoco.mj_forward(model, data)  # energy of the final state
    return np.array(data.qpos), wall, nstep, abs(data.energy.sum() - e0)


def run_mujoco_euler(n, t_end, dt):
    """MuJoCo's default semi-implicit Euler, for reference."""
    return run_mujoco(n, t_end, dt, integrator="Euler")


# ---------------------------------------------------------------- Exudyn

def run_exudyn(n, t_end, tol):
    """Exudyn's ObjectKinematicTree (minimal coordinates) with its DOPRI5 at rtol = atol = tol."""
    import exudyn as exu
    import exudyn.utilities as eu  # noqa: F401  (registers the item interfaces)
    from exudyn.rigidBodyUtilities import HT2rotationMatrix, HT2translation, HTtranslate

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground_node = mbs.AddNode(eu.NodeGenericODE2(numberOfODE2Coordinates=n,
                                                 referenceCoordinates=[0.0] * n,
                                                 initialCoordinates=[ANGLE] * n,
                                                 initialCoordinates_t=[0.0] * n))
    jt = [exu.JointType.RevoluteX if i % 2 == 0 else exu.JointType.RevoluteY for i in range(n)]
    transforms = [HTtranslate([0.0, 0.0, 0.0 if i == 0 else -1.0]) for i in range(n)]
    mbs.AddObject(eu.ObjectKinematicTree(
        nodeNumber=ground_node,
        jointTypes=jt,
        linkParents=list(range(-1, n - 1)),
        jointTransformations=exu.Matrix3DList([HT2rotationMatrix(T) for T in transforms]),
        jointOffsets=exu.Vector3DList([HT2translation(T) for T in transforms]),
        linkInertiasCOM=exu.Matrix3DList([ROD_INERTIA] * n),
        linkCOMs=exu.Vector3DList([[0.0, 0.0, -0.5]] * n),
        linkMasses=[1.0] * n,
        baseOffset=[0.0, 0.0, 0.0],
        gravity=[0.0, 0.0, -GRAVITY]))
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ss.timeIntegration.endTime = t_end
    ss.timeIntegration.numberOfSteps = 10  # max step t_end/10: the tolerance governs
    ss.timeIntegration.verboseMode = 0
    ss.timeIntegration.explicitIntegration.dynamicSolverType = exu.DynamicSolverType.DOPRI5
    ss.timeIntegration.automaticStepSize = True
    ss.timeIntegration.absoluteTolerance = tol
    ss.timeIntegration.relativeTolerance = tol
    ss.timeIntegration.minimumStepSize = 1e-14
    ss.timeIntegration.explicitIntegration.computeEndOfStepAccelerations = False
    ss.solutionSettings.writeSolutionToFile = False
    ss.solutionSettings.sensorsWritePeriod = t_end
    ss.displayComputationTime = False
    ss.displayStatistics = False
    start = time.perf_counter()
    mbs.SolveDynamic(ss, solverType=exu.DynamicSolverType.DOPRI5, showHints=False)
    wall = time.perf_counter() - start
    q = np.array(mbs.GetNodeOutput(ground_node, exu.OutputVariableType.Coordinates))
    v = np.array(mbs.GetNodeOutput(ground_node, exu.OutputVariableType.Coordinates_t))
    steps = int(mbs.sys["dynamicSolver"].it.currentStepIndex) if "dynamicSolver" in mbs.sys else -1
    # Exudyn reports no energy for a kinematic tree: evaluate it with Pinocchio's model of
    # the same chain (the drift does not depend on the potential's zero)
    model = pinocchio_chain(n)
    data = model.createData()
    drift = abs(pinocchio_energy(model, data, q, v)
                - pinocchio_energy(model, data, np.full(n, ANGLE), np.zeros(n)))
    return q, wall, steps, drift


# ---------------------------------------------------------------- sweep

ENGINES = {  # name: (runner, settings from cheap to expensive, setting label)
    "mbd (compiled DOP853)": (run_mbd, TOLS, "tol"),
    "Pinocchio ABA + scipy DOP853": (run_pinocchio, TOLS, "tol"),
    "MuJoCo RK4": (run_mujoco, STEPS, "dt"),
    "MuJoCo Euler": (run_mujoco_euler, STEPS, "dt"),
    "Exudyn KinematicTree DOPRI5": (run_exudyn, TOLS, "tol"),
}


def sweep(runner, settings, n, t_end, ref, log):
    """Run settings from cheap to expensive until the error is below the tightest threshold.

    Returns {threshold: (setting, err, row)} for the cheapest setting reaching each threshold
    (by wall time among those tried), and a note.
    """
    tried, note = [], ""
    for s in settings:
        try:
            q, wall, count, drift = runner(n, t_end, s)
        except Exception as exc:  # an engine that fails at a setting is reported, not fatal
            note = f"failed at {s:g}: {type(exc).__name__}: {str(exc)[:80]}"
            break
        err = float(np.max(np.abs(q - ref))) if np.all(np.isfinite(q)) else np.inf
        tried.append((s, err, wall, count, drift))
        log(f"    {s:9.2e}: err {err:9.2e}  wall {wall:8.3f} s  count {count}")
        if err < THRESHOLDS[-1]:
            break
        if wall > SLOW:
            note = f"stopped after {s:g} ({wall:.0f} s > {SLOW:.0f} s)"
            break
    best = {}
    for th in THRESHOLDS:
        ok = [t for t in tried if t[1] < th]
        if ok:
            # the sweep's first pass doubled as warm-up; the cheapest by count is timed again
            best[th] = min(ok, key=lambda t: (t[3], t[2]))
    return best, note


def timed(runner, n, t_end, s, least=5, most=1001, budget=1.0):
    """Median wall time of repeated runs at setting s, and the last run's outputs: at least
    ``least`` runs, then more until they add up to ``budget`` seconds (at most ``most``), so
    that millisecond runs get a median robust to the machine's other work: a sub-millisecond
    run is timed about a thousand times over a second, not 51 times over 30 ms, where one
    hiccup of the machine moved the 2-link chain's ratio from 0.72 to 1.26."""
    walls = []
    while len(walls) < least or (sum(walls) < budget and len(walls) < most):
        q, wall, count, drift = runner(n, t_end, s)
        walls.append(wall)
    return statistics.median(walls), count, drift


def main(sizes, engines=None):
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    engines = engines or list(ENGINES)
    rows, notes = [], []
    for n in sizes:
        t_end = t_end_for(n)
        log(f"N = {n}, t_end = {t_end}: reference")
        ref, ref_wall, ref_nfev, ref_drift = run_mbd(n, t_end, REF_TOL)
        pin_ref, pin_wall, _, _ = run_pinocchio(n, t_end, REF_TOL)
        agree = float(np.max(np.abs(ref - pin_ref)))
        notes.append(f"N = {n}: reference mbd DOP853 at 1e-13 ({ref_nfev} RHS evaluations, "
                     f"{ref_wall:.1f} s, energy drift {ref_drift:.1e} J); Pinocchio + scipy DOP853 "
                     f"at 1e-13 agrees to max |dq| = {agree:.1e} rad")
        log(notes[-1])
        for name in engines:
            engine_rows, note = score(n, name, ENGINES[name], t_end, ref, log)
            rows += engine_rows
            if note:
                notes.append(f"N = {n}, {name}: {note}")
    return rows, notes


def score(key, name, engine, t_end, ref, log):
    """Sweep one engine ``(runner, settings, label)`` on model ``key`` and time its cheapest
    setting for each threshold: the table rows ``(key, threshold, name, figures or None)``
    and the sweep's note."""
    runner, settings, label = engine
    log(f"  {name}")
    best, note = sweep(runner, settings, key, t_end, ref, log)
    rows = []
    for th in THRESHOLDS:
        if th not in best:
            rows.append((key, th, name, None))
            continue
        s, err, _, _, _ = best[th]
        wall, count, drift = timed(runner, key, t_end, s)
        rows.append((key, th, name, (label, s, err, wall, count, drift)))
    return rows, note


READING = """Reading the tables:
- Error = max |final coordinate - reference| (rad for the chain, at t = 10 s for N = 2, 10 and
  2.5 s for N = 50, where the motion turns chaotic). Reference: mbd at rtol = atol = 1e-13,
  checked against Pinocchio + scipy at the same tolerance (notes above).
- Setting: the cheapest one in the sweep that meets the threshold: tolerances (rtol = atol)
  1e-3 ... 1e-12 by quarter decades; MuJoCo time steps 0.1, 0.05, 0.02, 0.01, ... 1e-5 s.
- Wall: median of 5 to 1001 runs (more for short runs, up to 1 s in all) after the sweep's run
  (warm-up, so no JIT cost: see above). mbd's
  wall is the whole `System.simulate` call (initial state, integration, the Result object);
  Pinocchio's a bare `solve_ivp`; MuJoCo's `mj_step` over all steps; Exudyn's `SolveDynamic`.
- Count: right-hand-side evaluations for mbd and the scipy-driven peers (DOP853: 12 per step
  plus 3 per dense output), steps for MuJoCo (RK4: 4 evaluations each) and Exudyn (DOPRI5: 6).
- Energy drift |E(t_end) - E(0)| in J; for Exudyn its final state's energy is evaluated with
  Pinocchio's model of the same chain.
- mbd / fastest peer: mbd's wall over the lowest wall among the other engines in the same
  block (below 1: mbd is fastest)."""


def table(rows):
    lines = ["| N | max error < | engine | setting | error | wall (median) | "
             "RHS evals / steps | energy drift (J) | mbd / fastest peer |",
             "|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({(r[0], r[1]) for r in rows}, key=lambda k: (k[0], -k[1]))
    for n, th in keys:
        group = [r for r in rows if r[0] == n and r[1] == th]
        mbd_wall = next((r[3][3] for r in group if r[2].startswith("mbd") and r[3]), None)
        peers = [r[3][3] for r in group if not r[2].startswith("mbd") and r[3]]
        ratio = f"{mbd_wall / min(peers):.2f}" if mbd_wall and peers else "-"
        for _, _, name, res in group:
            if res is None:
                lines.append(f"| {n} | {th:g} | {name} | not reached | | | | | |")
                continue
            label, s, err, wall, count, drift = res
            lines.append(f"| {n} | {th:g} | {name} | {label} = {s:.1e} | {err:.1e} | "
                         f"{wall * 1e3:.1f} ms | {count} | {drift:.1e} | "
                         f"{ratio if name.startswith('mbd') else ''} |")
    return "\n".join(lines)


if __name__ == "__main__":
    args = sys.argv[1:]
    only = [a for a in args if not a.isdigit()]
    sizes = [int(a) for a in args if a.isdigit()] or [2, 10, 50]
    engines = [e for e in ENGINES if any(o.lower() in e.lower() for o in only)] or None
    t0 = time.perf_counter()
    rows, notes = main(sizes, engines)
    print(f"Chain of issue 7, {time.strftime('%Y-%m-%d')}, {platform.machine()} "
          f"{os.cpu_count()} cores, Python {platform.python_version()}")
    print()
    print(table(rows))
    print()
    for note in notes:
        print(f"- {note}")
    print(f"- total run time {time.perf_counter() - t0:.0f} s")
