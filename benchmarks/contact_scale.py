"""Contact at scale: a quadruped standing on its feet and spheres dropped in a box, mbd
against MuJoCo and PyBullet (not a test: run it by hand; no timed assertions).

**(1) Quadruped standing 2 s.** The Solo-12 of example-robot-data in the standing pose of
``examples/quadruped.py`` (``ROBOTS["solo12"]["stand"]``), held by a joint-space PD on every
joint (kp 5 N m/rad, kd 0.1 N m s/rad about the standing angles), no push, gravity 9.81.

- mbd: ``examples/quadruped.build_model("solo12")`` (its push input left at 0): ``mbd.from_urdf(...,
  floating=True, contact=feet)`` (each foot's collision mesh its convex hull thinned to 24
  vertices, the floor a plane, the default Hertz-like law (1 mm under the whole weight on one
  point) and exact stick-slip friction, mu_s 0.8, mu_k 0.7), ``stand_on_floor``; the PD is a
  ``SpringDamper`` on each joint. ``simulate(2.0, output_step=0.01, rtol=1e-6, atol=1e-9)``:
  the first run (the compilation included; ``stats["compile_time"]``) apart, then the median
  of ROUNDS warm runs.
- MuJoCo: the same URDF (mesh paths made absolute) through ``mujoco.MjSpec.from_string``
  (``fusestatic="false"``: the feet stay bodies), a free joint added to the root body, a
  floor plane; only the feet's geoms collide, with the floor (as in mbd), friction 0.8 on
  both (MuJoCo takes the larger); the PD as position actuators (kp 5, kv 0.1; ctrl the
  standing angles), default solver, pyramidal cone, Euler; dt 2 ms (default) and 0.2 ms.
  Stepped by ``mj_step(model, data, n)`` 10 ms at a time (the samples read between).
- PyBullet: ``loadURDF(copy with absolute mesh paths, useFixedBase=False,
  flags=URDF_USE_INERTIA_FROM_FILE)`` (without the flag Bullet recomputes the inertias from
  the collision shapes), a GEOM_PLANE floor, lateral friction 0.8 on every link and 1 on the
  floor (Bullet multiplies them), restitution 0, link damping 0, the default velocity motors
  disabled (``VELOCITY_CONTROL, forces=0``) and the PD as ``TORQUE_CONTROL`` torques set
  every step from ``getJointStates`` (a Python loop: its cost is in the wall time); dt 1/240
  s and 1/2400 s.
- Every engine starts from the standing pose at rest with the base at mbd's height after
  ``stand_on_floor`` (root_joint's q0; the base's orientation the identity).

Measured: wall per simulated second; the base's drift over the last second (the largest
|x(t) - x(1 s)|, |y ...|, |z ...| over 1 ... 2 s, sampled every 10 ms); the feet's horizontal
creep over the last second (each foot link's frame, the largest horizontal distance from
where it was at 1 s, the worst foot); the base height at 2 s; the vertical force of the
floor on the robot at 2 s against its weight (mbd: the ``*_floor`` contacts'
``total_normal_force`` summed; MuJoCo: ``mj_contactForce`` of every contact turned into the
world, z; PyBullet: ``getContactPoints`` normal and lateral forces, z).

**(2) Spheres dropped in a box.** A 1 m square box (a floor and four walls, each a
``mbd.Plane`` on a ground of its own, as ``examples/bouncing_balls.py``), N spheres of
radius 0.04 m and mass 0.1 kg, started at rest on a jittered grid (layers of 5 x 5 at
0.18 m spacing, +-0.03 m jitter, layers 0.12 m apart from 0.1 m up: the upper layers fall onto
the lower), 2 s. mbd: ``contacts_among(balls + walls, ElastoGap(c, d, n=1.5),
Coulomb(0.5, 0.4, v_crit=0.01))``: N(N-1)/2 + 5N contact elements, each tested by the broad
phase at every right-hand-side evaluation. c = m g / (1 mm)^1.5 (1 mm static penetration
under one sphere's weight), d = 0.2 of the critical damping of that linearized rest
stiffness (1.5 m g / 1 mm) on one sphere; regularized friction (v_crit 0.01 m/s as in
``examples/bouncing_balls.py``: at the default 1e-3 the slip transients are ten times
stiffer). Default DOP853, rtol = atol = 1e-6, output every 10 ms. Every pair is a contact
element; the broad phase (``mbd.compiled.broadphase.broad_phase``) leaves a pair whose
bounding spheres (a wall: its half-space) are apart unmeasured in an evaluation. MuJoCo: sphere geoms and
plane geoms (walls turned by ``zaxis``), friction 0.5, default step 2 ms and solver. PyBullet:
GEOM_SPHERE and GEOM_PLANE (walls by ``planeNormal``), lateral friction sqrt(0.5) on every
body (the products are 0.5), restitution 0, damping 0, 1/240 s.

mbd's runs of a size are skipped when their predicted wall (the previous size's, times
(N / N_prev)^2.5) passes SKIP_ABOVE s; its per-evaluation cost is still measured. Per
evaluation: mbd's compiled right-hand side (``Evaluator(system).call(ev.rhs, t, y, dy,
data)`` as ``benchmarks/loops.py`` times it, batches of ~50 ms, the median of 5) at the start
state (every sphere in the air, no force): with the broad phase (every pair apart: none
measured), with it off (``data.broad["exact"] = 1``: every pair's gap measured, as before it
existed), and the same N spheres without contacts (the tree alone: N SixDof joints of four
primitives each); in the run: wall / evaluations (which adds the stepping, the event location
and the output). The exponent p of cost ~ N^p: ``numpy.polyfit`` on the logs.

Usage::

    python benchmarks/contact_scale.py            # everything, writes CONTACT_SCALE.md
    python benchmarks/contact_scale.py --rounds 3 --sizes 10,20 --out FILE
"""
import argparse
import io
import math
import os
import statistics
import sys
import tempfile
import time

import numpy as np
from scipy.spatial.transform import Rotation

#: the packages whose versions the report names
PACKAGES = ["numpy", "scipy", "numba", "mujoco", "pybullet"]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "examples"))

import quadruped  # noqa: E402
from common import machine, median_call  # noqa: E402

import mbd  # noqa: E402
from forces import ElastoGap  # noqa: E402
from joints import SixDof  # noqa: E402
from mbd.model.files import atomic_open  # noqa: E402
from mbd.run.evaluator import Evaluator  # noqa: E402

G = 9.81
ROUNDS = 3          # timed runs per setting (the median)
DATE = "2026-12-07"

# ---------------------------------------------------------------- (1) quadruped

ROBOT = "solo12"
SPEC = quadruped.ROBOTS[ROBOT]
KP, KD = SPEC["kp"], SPEC["kd"]          # 5 N m/rad, 0.1 N m s/rad
Q_T, Q_STEP = 2.0, 0.01                  # s: run, sample
MU_FEET = 0.8


def have(module):
    """Whether ``module`` imports."""
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def urdf_text():
    """The Solo-12 URDF with its ``package://example-robot-data/`` paths made absolute, and
    that folder."""
    folder = quadruped.robots_folder()
    share = os.path.dirname(folder)          # .../share/example-robot-data
    with open(os.path.join(folder, SPEC["urdf"])) as fh:
        text = fh.read()
    return text.replace("package://example-robot-data/", share + "/"), share


def measures(t, base, feet, support, weight):
    """The standing measures from samples every Q_STEP over [0, Q_T].

    Parameters
    ----------
    t : ndarray (n,)
        Sample times, s.
    base : ndarray (n, 3)
        The base frame's position, m.
    feet : ndarray (n, F, 3)
        The feet frames' positions, m.
    support : float
        The floor's vertical force on the robot at Q_T, N.
    weight : float
        The robot's weight, N.

    Returns
    -------
    dict
        ``drift`` (3,) m, ``creep`` m, ``height`` m, ``support`` N, ``weight`` N.
    """
    last = t >= 1.0 - 1e-9
    i1 = int(np.argmax(last))
    drift = np.abs(base[last] - base[i1]).max(axis=0)
    creep = np.linalg.norm(feet[last][..., :2] - feet[i1][..., :2], axis=-1).max()
    return {"drift": drift, "creep": float(creep), "height": float(base[-1, 2]),
            "support": float(support), "weight": float(weight)}


def mbd_quadruped(rounds, log):
    """mbd's row: build, first run, median warm wall, the measures, evaluations, events."""
    start = time.perf_counter()
    model = quadruped.build_model(ROBOT)          # (its push input stays 0)
    system = model.build()
    build = time.perf_counter() - start
    z0 = float(next(e for e in model.elements if e.name == "root_joint").q0[2])
    run = dict(output_step=Q_STEP, rtol=quadruped.RTOL, atol=quadruped.ATOL)
    start = time.perf_counter()
    r = system.simulate(Q_T, **run)
    first = time.perf_counter() - start
    compile_time = r.stats.get("compile_time", math.nan)
    log(f"  mbd: build {build:.1f} s, first run {first:.1f} s (compile {compile_time:.1f} s)")
    walls = []
    for _ in range(rounds):
        start = time.perf_counter()
        r = system.simulate(Q_T, **run)
        walls.append(time.perf_counter() - start)
    names = [e.name for e in model.elements
             if isinstance(e, mbd.Contact) and e.name.endswith("_floor")]
    support = sum(r.contact(n).total_normal_force for n in names)[-1]
    weight = sum(b.mass for b in model.bodies) * G
    base = r.body("base_link").position("base_link")
    feet = np.stack([r.body(f"{f[:2]}_LOWER_LEG").position(f) for f in SPEC["feet"]], axis=1)
    m = measures(r.t, base, feet, support, weight)
    stick = sum(e.what in ("sticks", "breaks free: slips") for e in r.events)
    m.update(wall=statistics.median(walls) / Q_T, walls=walls, build=build, first=first,
             compile=compile_time, nfev=r.stats.get("nfev"), events=len(r.events), stick=stick)
    log(f"  mbd: warm {', '.join(f'{w:.2f}' for w in walls)} s")
    return m, z0


def mujoco_quadruped(dt, z0):
    """MuJoCo's model and data at the standing start (see the module docstring)."""
    import mujoco
    text, _ = urdf_text()
    i = text.index(">", text.index("<robot ")) + 1
    text = (text[:i] + '<mujoco><compiler discardvisual="true" fusestatic="false" '
            'strippath="false"/></mujoco>' + text[i:])
    spec = mujoco.MjSpec.from_string(text)
    spec.option.timestep = dt
    spec.worldbody.first_body().add_freejoint()
    friction = [MU_FEET, 0.005, 0.0001]
    for g in spec.geoms:
        foot = g.parent.name in SPEC["feet"]
        g.contype, g.conaffinity = (1, 0) if foot else (0, 0)
        g.friction = friction
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0.0, 0.0, 1.0], contype=0,
                            conaffinity=1, friction=friction)
    for joint in SPEC["stand"]:
        spec.add_actuator(trntype=mujoco.mjtTrn.mjTRN_JOINT, target=joint).set_to_position(
            kp=KP, kv=KD)
    model = spec.compile()
    data = mujoco.MjData(model)
    data.qpos[:7] = (0.0, 0.0, z0, 1.0, 0.0, 0.0, 0.0)
    for k, (joint, q) in enumerate(SPEC["stand"].items()):
        data.qpos[model.joint(joint).qposadr[0]] = q
        data.ctrl[model.actuator(k).id] = q
    mujoco.mj_forward(model, data)
    return model, data


def mujoco_quadruped_run(dt, z0):
    """(wall, measures) of MuJoCo's 2 s standing."""
    import mujoco
    model, data = mujoco_quadruped(dt, z0)
    feet = [model.body(f).id for f in SPEC["feet"]]
    n = int(round(Q_STEP / dt))
    rows = int(round(Q_T / Q_STEP))
    base, foot = [data.qpos[:3].copy()], [data.xpos[feet].copy()]
    wall = 0.0
    for _ in range(rows):
        start = time.perf_counter()
        mujoco.mj_step(model, data, n)
        wall += time.perf_counter() - start
        base.append(data.qpos[:3].copy())
        foot.append(data.xpos[feet].copy())
    fz, f6 = 0.0, np.zeros(6)
    for i in range(data.ncon):
        mujoco.mj_contactForce(model, data, i, f6)
        fz += (data.contact[i].frame.reshape(3, 3).T @ f6[:3])[2]
    t = np.arange(rows + 1) * Q_STEP
    return wall, measures(t, np.array(base), np.array(foot), abs(fz),
                          model.body_mass.sum() * G)


def pybullet_quadruped_run(dt, z0, path):
    """(wall, measures) of PyBullet's 2 s standing (the PD from Python every step)."""
    import pybullet as p
    cid = p.connect(p.DIRECT)
    kw = {"physicsClientId": cid}
    try:
        p.setGravity(0.0, 0.0, -G, **kw)
        p.setTimeStep(dt, **kw)
        plane = p.createMultiBody(0.0, p.createCollisionShape(p.GEOM_PLANE, **kw), **kw)
        p.changeDynamics(plane, -1, lateralFriction=1.0, restitution=0.0, **kw)
        robot = p.loadURDF(path, basePosition=(0.0, 0.0, z0), useFixedBase=False,
                           flags=p.URDF_USE_INERTIA_FROM_FILE, **kw)
        n_joints = p.getNumJoints(robot, **kw)
        infos = [p.getJointInfo(robot, j, **kw) for j in range(n_joints)]
        joint = {info[1].decode(): info[0] for info in infos}
        link = {info[12].decode(): info[0] for info in infos}
        js = [joint[name] for name in SPEC["stand"]]
        ref = np.array(list(SPEC["stand"].values()))
        feet = [link[f] for f in SPEC["feet"]]
        mass = sum(p.getDynamicsInfo(robot, k, **kw)[0] for k in range(-1, n_joints))
        for k in range(-1, n_joints):
            p.changeDynamics(robot, k, linearDamping=0.0, angularDamping=0.0,
                             lateralFriction=MU_FEET, restitution=0.0, **kw)
        for j, q in zip(js, ref):
            p.resetJointState(robot, j, q, **kw)
        p.setJointMotorControlArray(robot, js, p.VELOCITY_CONTROL, forces=[0.0] * len(js),
                                    **kw)
        n = int(round(Q_STEP / dt))
        rows = int(round(Q_T / Q_STEP))

        def sample():
            return (p.getBasePositionAndOrientation(robot, **kw)[0],
                    [p.getLinkState(robot, f, **kw)[4] for f in feet])
        b, f = sample()
        base, foot = [b], [f]
        states, control, step = p.getJointStates, p.setJointMotorControlArray, p.stepSimulation
        wall = 0.0
        for _ in range(rows):
            start = time.perf_counter()
            for _ in range(n):
                st = states(robot, js, **kw)
                q = np.array([s[0] for s in st])
                v = np.array([s[1] for s in st])
                control(robot, js, p.TORQUE_CONTROL, forces=(KP * (ref - q) - KD * v).tolist(),
                        **kw)
                step(**kw)
            wall += time.perf_counter() - start
            b, f = sample()
            base.append(b)
            foot.append(f)
        cps = p.getContactPoints(robot, plane, **kw)
        fz = sum(c[9] * c[7][2] + c[10] * c[11][2] + c[12] * c[13][2] for c in cps)
        t = np.arange(rows + 1) * Q_STEP
        return wall, measures(t, np.array(base), np.array(foot), abs(fz), mass * G)
    finally:
        p.disconnect(cid)


def quadruped_section(rounds, log):
    """Rows [(engine, setting, measures)] and notes of the standing quadruped."""
    m, z0 = mbd_quadruped(rounds, log)
    rows = [("mbd (compiled DOP853)", f"rtol 1e-6, atol 1e-9 ({m['nfev']} evals, "
             f"{m['events']} events)", m)]
    notes = [f"mbd: build (from_urdf, stand_on_floor, build) {m['build']:.1f} s; first run "
             f"{m['first']:.1f} s (compile_time {m['compile']:.1f} s; 0: every kernel loaded "
             f"from the cache of an earlier run, MBD_CACHE_DIR); warm runs "
             f"{', '.join(f'{w:.2f}' for w in m['walls'])} s; {m['events']} events, "
             f"{m['stick']} of them stick or slip; base start height (root_joint q0 z after "
             f"stand_on_floor) {z0:.6f} m, used by every engine"]
    jobs = []
    if have("mujoco"):
        for dt, what in ((2e-3, "default dt = 2 ms"), (2e-4, "dt = 0.2 ms")):
            try:
                wall, mm = mujoco_quadruped_run(dt, z0)
            except Exception as exc:             # noqa: BLE001 (reported in the .md)
                notes.append(f"MuJoCo dt {dt:g}: failed to load or run: {exc!r}")
                continue
            rows.append(("MuJoCo (Euler, pyramidal)", what, mm))
            jobs.append((len(rows) - 1, lambda dt=dt: mujoco_quadruped_run(dt, z0)[0]))
            log(f"  MuJoCo dt {dt:g}: {wall:.3f} s")
    else:
        notes.append("MuJoCo: not installed, no rows")
    tmp = None
    if have("pybullet"):
        text, _ = urdf_text()
        tmp = tempfile.mkdtemp(prefix="contact-scale-")
        path = os.path.join(tmp, "solo12.urdf")
        with open(path, "w") as fh:
            fh.write(text)
        for dt, what in ((1.0 / 240.0, "default dt = 1/240 s"), (1.0 / 2400.0, "dt = 1/2400 s")):
            try:
                wall, mm = pybullet_quadruped_run(dt, z0, path)
            except Exception as exc:             # noqa: BLE001 (reported in the .md)
                notes.append(f"PyBullet dt {dt:g}: failed to load or run: {exc!r}")
                continue
            rows.append(("PyBullet (PD from Python)", what, mm))
            jobs.append((len(rows) - 1, lambda dt=dt: pybullet_quadruped_run(dt, z0, path)[0]))
            log(f"  PyBullet dt {dt:g}: {wall:.3f} s")
    else:
        notes.append("PyBullet: not installed, no rows")
    walls = {i: [] for i, _ in jobs}
    for _ in range(rounds):
        for i, fn in jobs:
            walls[i].append(fn())
    for i, _ in jobs:
        rows[i][2]["wall"] = statistics.median(walls[i]) / Q_T
    if tmp is not None:
        os.remove(os.path.join(tmp, "solo12.urdf"))
        os.rmdir(tmp)
    return rows, notes


def quadruped_table(rows):
    """The standing quadruped's table."""
    lines = ["| engine | setting | wall / simulated s | base drift over 1 ... 2 s: x / y / z "
             "(m) | feet's horizontal creep over 1 ... 2 s (m) | base height at 2 s (m) | "
             "vertical floor force at 2 s / weight |",
             "|---|---|---|---|---|---|---|"]
    for engine, setting, m in rows:
        d = m["drift"]
        lines.append(f"| {engine} | {setting} | {m['wall'] * 1e3:.1f} ms | {d[0]:.1e} / "
                     f"{d[1]:.1e} / {d[2]:.1e} | {m['creep']:.1e} | {m['height']:.5f} | "
                     f"{m['support']:.4f} / {m['weight']:.4f} N |")
    return "\n".join(lines)


# ---------------------------------------------------------------- (2) spheres in a box

R_S, M_S, L_BOX, S_T = 0.04, 0.1, 1.0, 2.0
REST = 1e-3
C_S = M_S * G / REST ** 1.5
D_S = 0.2 * 2.0 * math.sqrt(1.5 * M_S * G / REST * M_S)
MU_S, MU_K, V_CRIT = 0.5, 0.4, 0.01
SIZES = (10, 20, 50, 100, 150)
SKIP_ABOVE = 180.0      # s: an mbd run predicted longer is skipped
WALLS = (("wall_east", (L_BOX / 2, 0.0, 0.0), Rotation.from_euler("y", -90, degrees=True),
          (-1.0, 0.0, 0.0)),
         ("wall_west", (-L_BOX / 2, 0.0, 0.0), Rotation.from_euler("y", 90, degrees=True),
          (1.0, 0.0, 0.0)),
         ("wall_north", (0.0, L_BOX / 2, 0.0), Rotation.from_euler("x", 90, degrees=True),
          (0.0, -1.0, 0.0)),
         ("wall_south", (0.0, -L_BOX / 2, 0.0), Rotation.from_euler("x", -90, degrees=True),
          (0.0, 1.0, 0.0)))


def sphere_starts(n, seed=1):
    """The n spheres' start positions (m): layers of 5 x 5 at 0.18 m, jittered."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        layer, i = divmod(k, 25)
        ix, iy = divmod(i, 5)
        out.append((-0.36 + 0.18 * ix + rng.uniform(-0.03, 0.03),
                    -0.36 + 0.18 * iy + rng.uniform(-0.03, 0.03),
                    0.1 + 0.12 * layer + rng.uniform(0.0, 0.02)))
    return out


def sphere_model(n, contacts=True, starts=None):
    """mbd's box of five planes and n spheres, every pair a Contact (none where not
    ``contacts``), started at :func:`sphere_starts` (or at ``starts``, n positions, m)."""
    model = mbd.Model(f"spheres{n}")
    floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    floor.add_shape(mbd.Plane(size=L_BOX), contact=True)
    grounds = [floor]
    for name, at, turn, _ in WALLS:
        wall = model.add_ground(name, at=np.add(at, (0.0, 0.0, L_BOX / 2)), orientation=turn)
        wall.add_shape(mbd.Plane(size=L_BOX), contact=True)
        grounds.append(wall)
    balls = []
    for k, p in enumerate(sphere_starts(n) if starts is None else starts):
        ball = model.add_body(f"ball{k}", M_S, (0.0, 0.0, 0.0), np.eye(3) * 0.4 * M_S * R_S**2)
        ball.add_shape(mbd.Sphere(R_S), contact=True)
        model.add(SixDof(f"free{k}", floor, ball["cg"], q0=(*p, 1.0, 0.0, 0.0, 0.0)))
        balls.append(ball)
    for contact in mbd.contacts_among(balls + grounds, ElastoGap(c=C_S, d=D_S, n=1.5),
                                      mbd.Coulomb(MU_S, MU_K, v_crit=V_CRIT), jointed=True):
        if contacts:
            model.add(contact)
    return model


def evaluation_cost(system, every_pair=False):
    """Seconds per evaluation of the compiled right-hand side at the start state; with the
    broad phase off (every pair measured) where ``every_pair``."""
    state = system.initial_state()
    y = np.ascontiguousarray(np.concatenate([state.q, state.v]), dtype=float)
    ev = Evaluator(system)
    ev.data.broad["exact"] = int(every_pair)
    ev.natural_mode(0.0, y)
    dy = np.empty_like(y)
    return median_call(lambda: ev.call(ev.rhs, 0.0, y, dy, ev.data))


def mbd_spheres(n, rounds, predicted, log):
    """mbd's numbers for n spheres: build, per-evaluation cost, and (unless skipped) the
    first run, the warm wall, evaluations and events."""
    start = time.perf_counter()
    system = sphere_model(n).build()
    out = {"n": n, "contacts": n * (n - 1) // 2 + 5 * n, "build": time.perf_counter() - start}
    out["eval"] = evaluation_cost(system)
    out["eval_every"] = evaluation_cost(system, every_pair=True)
    out["eval_tree"] = evaluation_cost(sphere_model(n, contacts=False).build())
    log(f"  mbd N = {n}: build {out['build']:.1f} s, {out['eval'] * 1e6:.0f} us per evaluation "
        f"({out['eval_every'] * 1e6:.0f} us measuring every pair, "
        f"{out['eval_tree'] * 1e6:.0f} us without contacts)")
    if predicted is not None and predicted > SKIP_ABOVE:
        out["skipped"] = predicted
        log(f"  mbd N = {n}: run skipped (predicted {predicted:.0f} s)")
        return out
    run = dict(output_step=0.01, rtol=1e-6, atol=1e-6)
    start = time.perf_counter()
    r = system.simulate(S_T, **run)
    out["first"] = time.perf_counter() - start
    out["compile"] = r.stats.get("compile_time", math.nan)
    walls = []
    # a first run that compiled nothing is a warm run; a long one is not repeated
    if out["compile"] > 0.0 or out["first"] < 20.0:
        for _ in range(rounds if out["first"] < 20.0 else 1):
            start = time.perf_counter()
            r = system.simulate(S_T, **run)
            walls.append(time.perf_counter() - start)
    else:
        walls.append(out["first"])
    out.update(walls=walls, wall=statistics.median(walls) / S_T, nfev=r.stats.get("nfev"),
               nsteps=r.stats.get("nsteps"), events=len(r.events),
               begins=sum(e.what == "contact begins" for e in r.events))
    out["in_run"] = statistics.median(walls) / out["nfev"]
    log(f"  mbd N = {n}: first {out['first']:.1f} s, warm {', '.join(f'{w:.1f}' for w in walls)}"
        f" s, {out['nfev']} evals, {out['events']} events")
    return out


def mujoco_spheres(n, dt=2e-3):
    """MuJoCo's wall (s) for the 2 s drop of n spheres."""
    import mujoco
    fr = f'friction="{MU_S!r} 0.005 0.0001"'
    geoms = [f'<geom type="plane" size="0 0 1" {fr}/>']
    for _, at, _, normal in WALLS:
        pos = [float(v) for v in np.add(at, (0.0, 0.0, L_BOX / 2))]
        geoms.append(f'<geom type="plane" size="0 0 1" pos="{pos[0]!r} {pos[1]!r} {pos[2]!r}" '
                     f'zaxis="{normal[0]!r} {normal[1]!r} {normal[2]!r}" {fr}/>')
    bodies = [f'<body pos="{float(x)!r} {float(y)!r} {float(z)!r}"><freejoint/><geom type="sphere" size="{R_S!r}" '
              f'mass="{M_S!r}" {fr}/></body>' for x, y, z in sphere_starts(n)]
    xml = (f'<mujoco model="spheres"><option timestep="{dt!r}" gravity="0 0 {-G!r}"/>'
           f'<worldbody>{"".join(geoms)}{"".join(bodies)}</worldbody></mujoco>')
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    start = time.perf_counter()
    mujoco.mj_step(model, data, int(round(S_T / dt)))
    return time.perf_counter() - start


def pybullet_spheres(n, dt=1.0 / 240.0):
    """PyBullet's wall (s) for the 2 s drop of n spheres."""
    import pybullet as p
    cid = p.connect(p.DIRECT)
    kw = {"physicsClientId": cid}
    mu = math.sqrt(MU_S)
    try:
        p.setGravity(0.0, 0.0, -G, **kw)
        p.setTimeStep(dt, **kw)
        for at, normal in [((0.0, 0.0, 0.0), (0.0, 0.0, 1.0))] + [(w[1], w[3]) for w in WALLS]:
            shape = p.createCollisionShape(p.GEOM_PLANE, planeNormal=normal, **kw)
            body = p.createMultiBody(0.0, shape, basePosition=at, **kw)
            p.changeDynamics(body, -1, lateralFriction=mu, restitution=0.0, **kw)
        sphere = p.createCollisionShape(p.GEOM_SPHERE, radius=R_S, **kw)
        for x, y, z in sphere_starts(n):
            body = p.createMultiBody(M_S, sphere, basePosition=(x, y, z), **kw)
            p.changeDynamics(body, -1, lateralFriction=mu, restitution=0.0, linearDamping=0.0,
                             angularDamping=0.0, **kw)
        step = p.stepSimulation
        start = time.perf_counter()
        for _ in range(int(round(S_T / dt))):
            step(**kw)
        return time.perf_counter() - start
    finally:
        p.disconnect(cid)


def spheres_section(sizes, rounds, log):
    """[{mbd's numbers, "mujoco", "pybullet": wall per simulated s}] per size."""
    rows, previous = [], None
    for n in sizes:
        predicted = None
        if previous is not None and "wall" in previous:
            predicted = previous["wall"] * S_T * (n / previous["n"]) ** 2.5
        elif previous is not None:
            predicted = math.inf
        out = mbd_spheres(n, rounds, predicted, log)
        if have("mujoco"):
            out["mujoco"] = statistics.median(mujoco_spheres(n) for _ in range(rounds)) / S_T
        if have("pybullet"):
            out["pybullet"] = statistics.median(pybullet_spheres(n) for _ in range(rounds)) / S_T
        log(f"  peers N = {n}: MuJoCo {out.get('mujoco', math.nan) * 1e3:.2f} ms, PyBullet "
            f"{out.get('pybullet', math.nan) * 1e3:.2f} ms per simulated s")
        rows.append(out)
        previous = out
    return rows


def spheres_table(rows):
    """The spheres' run table."""
    lines = ["| N | contact elements | mbd build (s) | mbd first run (s) / compile_time (s) | "
             "mbd wall / simulated s | evaluations | steps | events (contact begins) | "
             "MuJoCo, dt 2 ms: wall / simulated s | PyBullet, dt 1/240 s: wall / simulated s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        peers = (f"{r['mujoco'] * 1e3:.2f} ms" if "mujoco" in r else "-",
                 f"{r['pybullet'] * 1e3:.2f} ms" if "pybullet" in r else "-")
        if "skipped" in r:
            lines.append(f"| {r['n']} | {r['contacts']} | {r['build']:.1f} | skipped (predicted "
                         f"{r['skipped']:.0f} s a run) | - | - | - | - | {peers[0]} | "
                         f"{peers[1]} |")
            continue
        lines.append(f"| {r['n']} | {r['contacts']} | {r['build']:.1f} | {r['first']:.1f} / "
                     f"{r['compile']:.1f} | {r['wall']:.2f} s | {r['nfev']} | {r['nsteps']} | "
                     f"{r['events']} ({r['begins']}) | {peers[0]} | {peers[1]} |")
    return "\n".join(lines)


def fit(ns, costs):
    """The exponent p of the least-squares fit cost = c N^p."""
    return float(np.polyfit(np.log(ns), np.log(costs), 1)[0])


def local_exponent(rows):
    """The exponent of the per-evaluation cost between the two largest sizes."""
    a, b = rows[-2], rows[-1]
    return math.log(b["eval"] / a["eval"]) / math.log(b["n"] / a["n"])


def scaling_table(rows):
    """Per-evaluation cost against N, and the fitted exponents."""
    lines = ["| N | contact elements | compiled right-hand side, start state (us): broad "
             "phase / every pair measured / no contacts (the tree) | contacts' share with "
             "the broad phase, per element (ns) | in the run: wall / evaluations (us) |",
             "|---|---|---|---|---|"]
    for r in rows:
        in_run = f"{r['in_run'] * 1e6:.0f}" if "in_run" in r else "-"
        lines.append(f"| {r['n']} | {r['contacts']} | {r['eval'] * 1e6:.1f} / "
                     f"{r['eval_every'] * 1e6:.1f} / {r['eval_tree'] * 1e6:.1f} | "
                     f"{(r['eval'] - r['eval_tree']) / r['contacts'] * 1e9:.0f} | {in_run} |")
    return "\n".join(lines)


# ---------------------------------------------------------------- report

def report(rounds, sizes, log):
    """The whole CONTACT_SCALE.md text, from one run."""
    started = time.perf_counter()
    out = io.StringIO()
    w = lambda line="": print(line, file=out)  # noqa: E731
    w(f"# Contact at scale: a standing quadruped and spheres in a box — {DATE}")
    w()
    w(f"Command: `python benchmarks/contact_scale.py` (everything below, one run). "
      f"{machine(PACKAGES)} The models, engines and measurement are described in the "
      "docstring of `benchmarks/contact_scale.py`. No timed assertions.")
    w()
    log("(1) quadruped")
    qrows, qnotes = quadruped_section(rounds, log)
    w("## (1) Solo-12 standing 2 s (PD kp 5 N m/rad, kd 0.1 N m s/rad, no push)")
    w()
    w(f"Wall: median of {rounds} runs of 2 s (mbd: warm runs, the first apart), per simulated "
      "second. Drift and creep: over the last second, from where each was at t = 1 s.")
    w()
    w(quadruped_table(qrows))
    w()
    for note in qnotes:
        w(f"- {note}")
    w()
    log("(2) spheres")
    srows = spheres_section(sizes, rounds, log)
    w(f"## (2) Spheres dropped in a box (r = {R_S} m, {M_S} kg, 2 s)")
    w()
    w(f"mbd: ElastoGap(c = {C_S:.4g} N/m^1.5, d = {D_S:.3g} N s/m, n = 1.5) (1 mm static "
      f"penetration under one sphere's weight, 0.2 of critical damping at rest), regularized "
      f"Coulomb({MU_S}, {MU_K}, v_crit = {V_CRIT} m/s) at every pair; DOP853 rtol = atol = "
      f"1e-6. Wall: median of warm runs ({rounds} when a run is under 20 s, else 1; a first "
      f"run with compile_time 0 is itself a warm run), per simulated second; the peers: median "
      f"of {rounds} runs. mbd runs predicted over {SKIP_ABOVE:.0f} s are skipped (the size's "
      "per-evaluation cost is still measured below).")
    w()
    w(spheres_table(srows))
    w()
    ns = [r["n"] for r in srows]
    p_eval = fit(ns, [r["eval"] for r in srows])
    per = [(r["eval"] - r["eval_tree"]) / r["contacts"] * 1e9 for r in srows]
    ran = [r for r in srows if "in_run" in r]
    p_run = fit([r["n"] for r in ran], [r["in_run"] for r in ran]) if len(ran) > 1 else math.nan
    p_wall = fit([r["n"] for r in ran], [r["wall"] for r in ran]) if len(ran) > 1 else math.nan
    p_every = fit(ns, [r["eval_every"] for r in srows])
    p_tree = fit(ns, [r["eval_tree"] for r in srows])
    w("Cost per right-hand-side evaluation against N (the broad phase tests every pair's "
      "bounding spheres, a few flops each, and measures the pairs within reach):")
    w()
    w(scaling_table(srows))
    w()
    w(f"- fitted exponent of the compiled right-hand side's cost ~ N^p over N = "
      f"{', '.join(map(str, ns))}: **p = {p_eval:.2f}** with the broad phase "
      f"({local_exponent(srows):.2f} between the two largest sizes), {p_every:.2f} measuring "
      f"every pair, {p_tree:.2f} for the tree alone; the contacts' share per contact element "
      f"with the broad phase is {per[0]:.0f} ns at N = {ns[0]} and {per[-1]:.0f} ns at "
      f"N = {ns[-1]} (its pair test and its compact records: still one per pair, so it grows "
      f"as N^2, at a tenth of a measured pair's cost); measured at the start state, where no "
      f"pair touches, on a shared machine")
    if len(ran) > 1:
        w(f"- in the runs (N = {', '.join(str(r['n']) for r in ran)}): wall / evaluations ~ "
          f"N^{p_run:.2f}; the whole wall per simulated second ~ N^{p_wall:.2f} (evaluations "
          f"and events grow with N too)")
    w()
    w(f"Total run time {time.perf_counter() - started:.0f} s.")
    w()
    w(meaning(qrows, srows))
    return out.getvalue()


def meaning(qrows, srows):
    """The "What this says" list, its numbers from this run's rows."""
    out = ["## What this says", ""]
    mbd_q = qrows[0][2]
    mj = [r for r in qrows if r[0].startswith("MuJoCo")]
    pb = [r for r in qrows if r[0].startswith("PyBullet")]
    if mj:
        out.append(f"- Quadruped: mbd {mbd_q['wall'] * 1e3:.0f} ms per simulated second, "
                   + ", ".join(f"{mbd_q['wall'] / r[2]['wall']:.0f}x MuJoCo at {r[1]} "
                               f"({r[2]['wall'] * 1e3:.1f} ms)" for r in mj)
                   + (", " + ", ".join(f"{mbd_q['wall'] / r[2]['wall']:.1f}x PyBullet at {r[1]}"
                                       for r in pb) if pb else "") + ".")
    out.append(f"- Quadruped, what the time buys: mbd's base moves {mbd_q['drift'].max():.1e} m "
               f"and its feet {mbd_q['creep']:.1e} m over the last second (exact stick-slip friction); "
               + "; ".join(f"{r[0].split(' (')[0]} {r[1]}: {r[2]['drift'].max():.1e} m and "
                           f"{r[2]['creep']:.1e} m" for r in qrows[1:])
               + ". Every engine carries the weight at 2 s (the table's last column).")
    out.append(f"- Quadruped, where mbd's time goes: {mbd_q['nfev']} evaluations and "
               f"{mbd_q['events']} events in 2 s, {mbd_q['wall'] * Q_T / mbd_q['nfev'] * 1e6:.0f}"
               f" us of wall per evaluation (stepping and events included); the first run "
               f"{mbd_q['first']:.1f} s of which compile_time {mbd_q['compile']:.1f} s.")
    ran = [r for r in srows if "in_run" in r]
    for r in ran:
        ratio = f"{r['wall'] / r['mujoco']:.0f}x MuJoCo" if "mujoco" in r else ""
        if "pybullet" in r:
            ratio += f", {r['wall'] / r['pybullet']:.0f}x PyBullet"
        share = r["nfev"] * r["eval"] / (r["wall"] * S_T)
        out.append(f"- Spheres, N = {r['n']}: mbd {r['wall']:.2f} s per simulated second "
                   f"({ratio}) = {r['nfev']} evaluations x {r['in_run'] * 1e6:.0f} us in the run;"
                   f" the bare right-hand side ({r['eval'] * 1e6:.0f} us at the start state) "
                   f"accounts for {share:.0%} of the wall, the rest is the stepping, the "
                   f"{r['events']} events' location (the switching functions of every "
                   f"contact element) and the output.")
    skipped = [r for r in srows if "skipped" in r]
    if skipped:
        out.append("- Spheres, skipped mbd runs: " + ", ".join(
            f"N = {r['n']} (predicted {r['skipped']:.0f} s a run; MuJoCo "
            f"{r.get('mujoco', math.nan) * 1e3:.1f} ms, PyBullet "
            f"{r.get('pybullet', math.nan) * 1e3:.1f} ms per simulated s)" for r in skipped)
            + ".")
    ns = [r["n"] for r in srows]
    last = srows[-1]
    out.append(f"- The right-hand side's cost grows as N^{fit(ns, [r['eval'] for r in srows]):.2f}"
               f" ({srows[0]['eval'] * 1e6:.0f} us at N = {srows[0]['n']}, "
               f"{last['eval'] * 1e6:.0f} us at N = {last['n']}), "
               f"{last['eval_every'] / last['eval']:.1f}x less at N = {last['n']} than "
               f"measuring every pair; of it, the tree of N free bodies (SixDof joints of four "
               f"primitives each) is {last['eval_tree'] / last['eval']:.0%} at N = {last['n']}. "
               "The contacts' share still grows as N^2 (one test and one compact record per "
               "pair): linear needs contact elements only for the pairs a sweep finds near, "
               "not one per pair made at build. The number of evaluations also grows with N "
               "(more contacts, more events), so the wall grows faster than one evaluation's "
               "cost.")
    return "\n".join(out)


def main(argv=None):
    """Run everything and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--out", default=os.path.join(HERE, "CONTACT_SCALE.md"))
    args = parser.parse_args(argv)
    sizes = sorted({int(s) for s in args.sizes.split(",")})
    if len(sizes) < 2:
        parser.error(f"--sizes: two sizes or more (the cost's exponent is fitted over them), "
                     f"got {args.sizes!r}")
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    text = report(args.rounds, sizes, log)
    print(text)
    with atomic_open(args.out) as fh:
        fh.write(text)

if __name__ == "__main__":
    main()
