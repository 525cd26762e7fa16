"""URDF robots: a humanoid built from its URDF, and one forward-dynamics evaluation, mbd
against Pinocchio and MuJoCo (not a test: run it by hand). Writes benchmarks/URDF.md.

The robot: Talos (``talos_data/robots/talos_reduced.urdf`` of the PyPI package
example-robot-data: 32 revolute joints, 27 fixed ones, STL meshes) on a floating base, so
nq = 39 and nv = 38 in every tool, 90.27 kg. Each tool reads the same file:

- **mbd**: ``mbd.from_urdf(path, package_dirs, floating=True, limits="ignore",
  dynamics=False)`` and ``build()`` -- the rigid robot alone, as the peers' forward dynamics
  see it (the default, ``limits="stops"`` with the URDF's damping and friction, adds 72 force
  elements: its build is timed too, a row of its own);
- **Pinocchio**: ``pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())`` and
  ``createData()``;
- **MuJoCo**: ``MjSpec.from_file`` of a copy of the URDF (mesh paths made absolute and a
  ``<mujoco><compiler strippath="false" discardvisual="true" .../></mujoco>`` tag added: its
  URDF reader has no ``package://``), a free joint added to the root body (its URDF reader
  fixes the root), ``compile()`` and ``MjData``. Compiling reads and processes the collision
  meshes, which neither mbd nor Pinocchio reads, so it is timed twice: as given, and from a
  copy without ``<visual>`` and ``<collision>`` (the like-for-like row). The URDF's damping and
  friction are zeroed and the constraint solver disabled (no contacts, limits or friction
  loss): ``mj_forward`` is then the smooth dynamics alone.

**Same robot.** Before timing anything, asserted: equal nq, nv and total mass; the mass
matrices of mbd and Pinocchio (mbd's base velocity is the world velocity and the body-axes
angular velocity, Pinocchio's both in body axes: M_mbd = T^T M_pin T, T = diag(R^T, I)) and
of mbd and MuJoCo (MuJoCo's free joint has mbd's convention) agree to 1e-9 relative at a
random state, and so do the accelerations at that state (mbd's right-hand side, ``pin.aba``,
``mj_forward``'s qacc: the 32 joints' and the base's angular ones against Pinocchio, all 38
against MuJoCo).

**Build time**: the median of ROUNDS rounds, the tools interleaved round by round (the
machine may be shared), after a first round (imports, the numba cache's loading).

**One forward-dynamics evaluation** at STATES random states (the base anywhere, any
orientation, every joint angle uniform in +-1 rad, every rate normal with 1 rad/s or 1 m/s
deviation), the median of ROUNDS rounds over all of them:

- mbd: (1) its compiled right-hand side called from a compiled loop (what the compiled
  integrator pays per evaluation, with no Python); (2) a simulation's wall time over its
  right-hand-side evaluations (the compiled DOP853 loop, rtol = atol = 1e-8, SIM_T s of the
  robot falling freely from a random state, ~9000 evaluations: the evaluation, the
  integrator's own work and ``simulate``'s fixed cost, which a run of SHORT_T s measures);
  (3) the right-hand side called from Python (``Evaluator.call``, one call per state);
- Pinocchio: ``pin.aba(model, data, q, v, tau, pin.Convention.WORLD)`` (the faster of its
  two conventions) called from Python (it has no compiled loop to call it from), one call
  per state;
- MuJoCo: ``mj_forward`` called from Python, one per state (the copy of the state into
  ``qpos``/``qvel`` timed apart and taken off); and ``mj_step(model, data, nstep)``, its
  loop in C, with the Euler integrator (one ``mj_forward`` a step) and RK4 (four), wall time
  over the evaluations.

The Python-call overhead of each tool's per-call route is measured on a one-joint pendulum
(the same call on the smallest robot): subtracted, it estimates the compiled cost of the
call (marked ~).

Usage::

    pip install -e '.[bench]' && pip install example-robot-data
    python benchmarks/urdf.py            # prints and writes benchmarks/URDF.md
"""
import argparse
import os
import platform
import re
import site
import statistics
import tempfile
import time

import numpy as np
from common import versions

from mbd.compiled import statekernels
from mbd.compiled.jit.jitcache import njit

HERE = os.path.dirname(os.path.abspath(__file__))

ROBOT = ("talos_data", "robots", "talos_reduced.urdf")
ROUNDS = 15               # timing rounds (median)
STATES = 1000             # random states per round of the per-call timings
SIM_T = 10.0              # s simulated by mbd's timed run
SHORT_T = 1e-3            # s, a run as short as one step: simulate's fixed cost
MJ_STEPS = 2000           # steps of MuJoCo's timed mj_step loop
MJ_DT = 1e-3              # s, its time step
SEED = 7


# ---------------------------------------------------------------- the robot in each tool

#: the packages whose versions the report names
PACKAGES = ["numpy", "scipy", "numba", "pin", "mujoco", "yourdfpy", "example-robot-data"]

def share():
    """The folder holding the package ``example-robot-data`` (``<site-packages>/cmeel.prefix/
    share``), in which ``package://example-robot-data/...`` paths resolve."""
    for folder in site.getsitepackages() + [site.getusersitepackages()]:
        found = os.path.join(folder, "cmeel.prefix", "share")
        if os.path.isdir(os.path.join(found, "example-robot-data")):
            return found
    raise SystemExit("benchmarks/urdf.py needs the robots of example-robot-data: "
                     "pip install example-robot-data")


def robot_path():
    return os.path.join(share(), "example-robot-data", "robots", *ROBOT)


def mujoco_copies(path, folder):
    """(the URDF for MuJoCo, the same without visuals and collisions), written to ``folder``:
    mesh paths absolute, a compiler tag that keeps them and drops the visuals."""
    text = open(path).read().replace("package://", share() + os.sep)
    tag = ('<mujoco><compiler strippath="false" discardvisual="true" balanceinertia="false" '
           'boundmass="0" boundinertia="0"/></mujoco>')
    text = re.sub(r"(<robot[^>]*>)", r"\1" + tag, text, count=1)
    bare = re.sub(r"<(visual|collision)\b.*?</\1>", "", text, flags=re.S)
    paths = [os.path.join(folder, name) for name in ("robot.urdf", "robot_bare.urdf")]
    for p, t in zip(paths, (text, bare)):
        with open(p, "w") as f:
            f.write(t)
    return paths


def build_mbd(path, **options):
    """mbd's System of the robot on a floating base (``options`` to ``from_urdf``; default:
    the rigid robot alone)."""
    import mbd
    options = dict(dict(limits="ignore", dynamics=False), **options)
    return mbd.from_urdf(path, package_dirs=[share()], floating=True, **options).build()


def build_pinocchio(path):
    import pinocchio as pin
    model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    return model, model.createData()


def build_mujoco(path):
    """MuJoCo's (model, data) of a URDF copy, with a free joint at the root; the URDF's joint
    damping and friction zeroed and the constraint solver off (the smooth dynamics alone)."""
    import mujoco
    spec = mujoco.MjSpec.from_file(path)
    spec.worldbody.first_body().add_freejoint()
    model = spec.compile()
    model.dof_damping[:] = 0.0
    model.dof_frictionloss[:] = 0.0
    model.dof_armature[:] = 0.0
    model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    return model, mujoco.MjData(model)


# ---------------------------------------------------------------- states in each convention

class States:
    """Random states in mbd's coordinates and the same states in Pinocchio's and MuJoCo's.

    mbd: q = [base position, quaternion (w, x, y, z), joints in mbd's order], v = [base
    world velocity, angular velocity in base axes, joint rates]. Pinocchio: q = [position,
    quaternion (x, y, z, w), joints], v = [base velocity in base axes, angular velocity in
    base axes, joints]. MuJoCo: as mbd's, joints in its own order.
    """

    def __init__(self, system, pin_model, mj_model, n, rng):
        self.n = n
        names = [name for name in system.joints if name != "root_joint"]
        qi = np.array([int(system.joints[k].q_index[0]) for k in names])
        vi = np.array([int(system.joints[k].v_index[0]) for k in names])
        self.q = np.zeros((n, system.nq))
        self.v = rng.normal(size=(n, system.nv))
        self.q[:, :3] = rng.uniform(-1.0, 1.0, size=(n, 3))
        quat = rng.normal(size=(n, 4))
        self.q[:, 3:7] = quat / np.linalg.norm(quat, axis=1)[:, None]
        self.q[:, qi] = rng.uniform(-1.0, 1.0, size=(n, len(names)))
        # Pinocchio
        pin_q = [pin_model.joints[pin_model.getJointId(k)].idx_q for k in names]
        pin_v = [pin_model.joints[pin_model.getJointId(k)].idx_v for k in names]
        self.pin_q = np.zeros((n, pin_model.nq))
        self.pin_v = np.zeros((n, pin_model.nv))
        self.pin_q[:, :3] = self.q[:, :3]
        self.pin_q[:, 3:7] = self.q[:, [4, 5, 6, 3]]
        self.pin_q[:, pin_q] = self.q[:, qi]
        self.rotation = np.array([_rotation(w) for w in self.q[:, 3:7]])
        self.pin_v[:, :3] = np.einsum("nji,nj->ni", self.rotation, self.v[:, :3])   # R^T v
        self.pin_v[:, 3:6] = self.v[:, 3:6]
        self.pin_v[:, pin_v] = self.v[:, vi]
        # MuJoCo
        mj_q = [int(mj_model.joint(k).qposadr[0]) for k in names]
        mj_v = [int(mj_model.joint(k).dofadr[0]) for k in names]
        self.mj_q = np.zeros((n, mj_model.nq))
        self.mj_v = np.zeros((n, mj_model.nv))
        self.mj_q[:, :7] = self.q[:, :7]
        self.mj_v[:, :6] = self.v[:, :6]
        self.mj_q[:, mj_q] = self.q[:, qi]
        self.mj_v[:, mj_v] = self.v[:, vi]
        self.joints_mbd, self.joints_pin, self.joints_mj = vi, np.array(pin_v), np.array(mj_v)

    def y(self, k):
        """mbd's state vector [q, v] of state k."""
        return np.concatenate([self.q[k], self.v[k]])


def _rotation(quaternion):
    """The rotation matrix of a unit quaternion (w, x, y, z)."""
    w, x, y, z = quaternion
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


# ---------------------------------------------------------------- the guard: the same robot

def same_robot(system, pin_model, pin_data, mj_model, mj_data, states):
    """Assert that the three tools model the same robot (see the module); returns the notes."""
    import mujoco
    import pinocchio as pin

    from mbd.compiled import dynamics
    from mbd.run.evaluator import Evaluator
    assert system.nq == pin_model.nq == mj_model.nq == 39, (system.nq, pin_model.nq,
                                                           mj_model.nq)
    assert system.nv == pin_model.nv == mj_model.nv == 38
    masses = (float(system.tree["mass"].sum()),            # every link's (the base's too)
              sum(inertia.mass for inertia in pin_model.inertias),
              mujoco.mj_getTotalmass(mj_model))
    assert np.allclose(masses, masses[0], rtol=1e-12, atol=0), masses
    k = 0
    M = dynamics.mass_matrix(system, states.q[k])
    # Pinocchio's velocities are T v with T = diag(R^T, I): M_mbd = T^T M_pin T
    T = np.zeros((system.nv, pin_model.nv))
    T[:3, :3] = states.rotation[k].T
    T[3:6, 3:6] = np.eye(3)
    T[states.joints_pin, states.joints_mbd] = 1.0
    M_pin = pin.crba(pin_model, pin_data, states.pin_q[k])
    M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
    M_from_pin = T.T @ M_pin @ T
    P = np.zeros((system.nv, mj_model.nv))             # MuJoCo's order into mbd's
    P[:6, :6] = np.eye(6)
    P[states.joints_mj, states.joints_mbd] = 1.0
    mj_data.qpos[:], mj_data.qvel[:] = states.mj_q[k], states.mj_v[k]
    mujoco.mj_forward(mj_model, mj_data)
    M_mj = np.zeros((mj_model.nv, mj_model.nv))
    mujoco.mj_fullM(mj_model, mj_data, M_mj)
    M_from_mj = P.T @ M_mj @ P
    scale = np.abs(M).max()
    err_pin = np.abs(M - M_from_pin).max() / scale
    err_mj = np.abs(M - M_from_mj).max() / scale
    assert err_pin < 1e-9 and err_mj < 1e-9, (err_pin, err_mj)
    # accelerations: mbd's right-hand side against pin.aba and MuJoCo's qacc
    ev = Evaluator(system)
    dy, _ = ev.derivative(0.0, states.y(k))
    a = dy[system.nq:]
    a_pin = pin.aba(pin_model, pin_data, states.pin_q[k], states.pin_v[k],
                    np.zeros(pin_model.nv))
    a_mj = P.T @ mj_data.qacc
    a_scale = np.abs(a).max()
    err_a_pin = max(np.abs(a[states.joints_mbd] - a_pin[states.joints_pin]).max(),
                    np.abs(a[3:6] - a_pin[3:6]).max()) / a_scale
    err_a_mj = np.abs(a - a_mj).max() / a_scale
    assert err_a_pin < 1e-8 and err_a_mj < 1e-8, (err_a_pin, err_a_mj)
    return [f"the same robot in the three tools (asserted): nq = {system.nq}, nv = "
            f"{system.nv}, total mass {masses[0]:.4f} kg; at a random state the mass matrices "
            f"agree to {err_pin:.1e} (mbd / Pinocchio) and {err_mj:.1e} (mbd / MuJoCo) of "
            f"their largest entry, the accelerations to {err_a_pin:.1e} and {err_a_mj:.1e} "
            f"of theirs ({a_scale:.3g} in rad/s^2 or m/s^2)"]


# ---------------------------------------------------------------- build times

def build_times(path, mj_path, mj_bare):
    """{row: (median s, first s)} over ROUNDS interleaved rounds (see the module)."""
    import mbd

    def mbd_parse():
        return mbd.from_urdf(path, package_dirs=[share()], floating=True, limits="ignore",
                             dynamics=False)

    models = {}

    def mbd_build():
        return models["mbd"].build()

    steps = {
        "mbd: from_urdf (URDF -> Model)": lambda: models.__setitem__("mbd", mbd_parse()),
        "mbd: build() (Model -> System)": mbd_build,
        "mbd: both, with the default stops, dampers and friction (72 elements)":
            lambda: build_mbd(path, limits="stops", dynamics=True),
        "Pinocchio: buildModelFromUrdf + JointModelFreeFlyer, createData":
            lambda: build_pinocchio(path),
        "MuJoCo: MjSpec.from_file + free joint, compile, MjData (without geometry)":
            lambda: build_mujoco(mj_bare),
        "MuJoCo: the same with the URDF's collision meshes":
            lambda: build_mujoco(mj_path),
    }
    samples = {name: [] for name in steps}
    first = {}
    for r in range(ROUNDS + 1):
        for name, step in steps.items():
            start = time.perf_counter()
            step()
            wall = time.perf_counter() - start
            if r == 0:
                first[name] = wall
            else:
                samples[name].append(wall)
    return {name: (statistics.median(s), first[name]) for name, s in samples.items()}


# ---------------------------------------------------------------- evaluation costs

# mbd's two tree right-hand sides called over rows of states from a compiled loop: their cost
# without Python, as the compiled integrator pays it

@njit()
def _rhs_link_rows(Y, dy, data):
    for k in range(Y.shape[0]):
        statekernels.tree_free_link(0.0, Y[k], dy, data)


@njit()
def _rhs_world_rows(Y, dy, data):
    for k in range(Y.shape[0]):
        statekernels.tree_free_world(0.0, Y[k], dy, data)


ROWS = {statekernels.tree_free_link: _rhs_link_rows,
        statekernels.tree_free_world: _rhs_world_rows}


def pendulums():
    """A one-joint pendulum in each tool, for the Python-call overhead: (mbd's System,
    (Pinocchio's model, data), (MuJoCo's model, data))."""
    import mujoco
    import pinocchio as pin

    import mbd
    from joints import Revolute
    m = mbd.Model("pendulum")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    bob = m.add_body("bob", mass=1.0, cg=(1.0, 0, 0), inertia=[1e-3, 1e-3, 1e-3],
                     cs={"pivot": (0, 0, 0)})
    m.add(Revolute("hinge", g, bob["pivot"], axis=(0, 1, 0)))
    pin_model = pin.Model()
    j = pin_model.addJoint(0, pin.JointModelRY(), pin.SE3.Identity(), "hinge")
    pin_model.appendBodyToJoint(j, pin.Inertia(1.0, np.array([1.0, 0, 0]), np.eye(3) * 1e-3),
                                pin.SE3.Identity())
    mj_model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><body><joint type="hinge" axis="0 1 0"/><inertial pos="1 0 0" '
        'mass="1" diaginertia="1e-3 1e-3 1e-3"/></body></worldbody></mujoco>')
    return (m.build(), (pin_model, pin_model.createData()),
            (mj_model, mujoco.MjData(mj_model)))


def initial_values(system, q, v):
    """(q0, v0) dicts by joint name for ``simulate`` from flat mbd coordinates (a number for
    a one-coordinate joint: its fast path)."""
    def entry(values, index):
        return float(values[index[0]]) if len(index) == 1 else values[index]
    return ({k: entry(q, j.q_index) for k, j in system.joints.items()},
            {k: entry(v, j.v_index) for k, j in system.joints.items()})


def per_call(fn, calls):
    """Seconds per call: ``fn()`` runs ``calls`` calls."""
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / calls


def evaluation_costs(system, pin_model, pin_data, mj_model, mj_data, states):
    """{measure: median s per evaluation} over ROUNDS interleaved rounds, and mbd's run's
    statistics."""
    import mujoco
    import pinocchio as pin

    from mbd.run.evaluator import Evaluator
    ev = Evaluator(system)
    Y = np.ascontiguousarray(np.hstack([states.q, states.v]))
    dy = np.zeros(Y.shape[1])
    loop = ROWS[ev.rhs]
    rhs = ev.rhs
    tau = np.zeros(pin_model.nv)
    world = pin.Convention.WORLD      # the faster of its two conventions (~10 % here)
    n = states.n
    # mbd's timed run: from state 0, falling freely
    q0, v0 = initial_values(system, states.q[0], states.v[0])
    run = dict(output_step=SIM_T, rtol=1e-8, atol=1e-8, q0=q0, v0=v0)
    result = system.simulate(SIM_T, **run)
    short = system.simulate(SHORT_T, **dict(run, output_step=SHORT_T))

    pend, (pp_model, pp_data), (pm_model, pm_data) = pendulums()
    psd = Evaluator(pend)
    py = np.zeros(2)
    pdy = np.zeros(2)
    pq, pv, ptau = np.zeros(1), np.zeros(1), np.zeros(1)

    def mbd_python():
        for k in range(n):
            ev.call(rhs, 0.0, Y[k], dy, ev.data)

    def pin_aba():
        for k in range(n):
            pin.aba(pin_model, pin_data, states.pin_q[k], states.pin_v[k], tau, world)

    def mj_copy_and_forward():
        for k in range(n):
            mj_data.qpos[:] = states.mj_q[k]
            mj_data.qvel[:] = states.mj_v[k]
            mujoco.mj_forward(mj_model, mj_data)

    def mj_copy():
        for k in range(n):
            mj_data.qpos[:] = states.mj_q[k]
            mj_data.qvel[:] = states.mj_v[k]

    def mj_steps(integrator):
        mj_model.opt.integrator = integrator
        mj_model.opt.timestep = MJ_DT
        mj_data.qpos[:], mj_data.qvel[:] = states.mj_q[0], states.mj_v[0]
        mj_data.time = 0.0
        mujoco.mj_step(mj_model, mj_data, MJ_STEPS)
        # a run that blew up would be reset by MuJoCo, and time something else
        bad = int(mujoco.mjtWarning.mjWARN_BADQACC)
        assert mj_data.warning[bad].number == 0 and np.all(np.isfinite(mj_data.qpos))

    measures = {
        "mbd_loop": lambda: per_call(lambda: loop(Y, dy, ev.data), n),
        "mbd_sim": lambda: per_call(lambda: system.simulate(SIM_T, **run),
                                    result.stats["nfev"]),
        "mbd_short": lambda: per_call(lambda: system.simulate(
            SHORT_T, **dict(run, output_step=SHORT_T)), 1),
        "mbd_python": lambda: per_call(mbd_python, n),
        "mbd_overhead": lambda: per_call(lambda: [psd.call(psd.rhs, 0.0, py, pdy, psd.data)
                                                  for _ in range(n)], n),
        "pin_aba": lambda: per_call(pin_aba, n),
        "pin_overhead": lambda: per_call(lambda: [pin.aba(pp_model, pp_data, pq, pv, ptau,
                                                          world) for _ in range(n)], n),
        "mj_forward": lambda: per_call(mj_copy_and_forward, n) - per_call(mj_copy, n),
        "mj_overhead": lambda: per_call(lambda: [mujoco.mj_forward(pm_model, pm_data)
                                                 for _ in range(n)], n),
        "mj_euler": lambda: per_call(lambda: mj_steps(mujoco.mjtIntegrator.mjINT_EULER),
                                     MJ_STEPS),
        "mj_rk4": lambda: per_call(lambda: mj_steps(mujoco.mjtIntegrator.mjINT_RK4),
                                   4 * MJ_STEPS),
    }
    for measure in measures.values():          # warm-up: compiles, caches
        measure()
    samples = {name: [] for name in measures}
    for _ in range(ROUNDS):
        for name, measure in measures.items():
            samples[name].append(measure())
    costs = {name: statistics.median(s) for name, s in samples.items()}
    # the marginal cost of an evaluation: the long run less the short one, per evaluation
    costs["mbd_marginal"] = (costs["mbd_sim"] * result.stats["nfev"] - costs["mbd_short"]) / (
        result.stats["nfev"] - short.stats["nfev"])
    return costs, result.stats, ev.rhs.py_func.__name__


# ---------------------------------------------------------------- the report

def us(seconds):
    return f"{seconds * 1e6:.2f} µs"


def ms(seconds):
    return f"{seconds * 1e3:.1f} ms"


def report():
    """(the URDF.md text, the headline ratios)."""
    started = time.perf_counter()
    path = robot_path()
    rng = np.random.default_rng(SEED)
    with tempfile.TemporaryDirectory() as folder:
        mj_path, mj_bare = mujoco_copies(path, folder)
        builds = build_times(path, mj_path, mj_bare)
        system = build_mbd(path)
        pin_model, pin_data = build_pinocchio(path)
        mj_model, mj_data = build_mujoco(mj_bare)
    states = States(system, pin_model, mj_model, STATES, rng)
    notes = same_robot(system, pin_model, pin_data, mj_model, mj_data, states)
    cost, stats, variant = evaluation_costs(system, pin_model, pin_data, mj_model, mj_data,
                                            states)

    lines = []
    w = lines.append
    w(f"# URDF robots: Talos from its URDF, mbd against Pinocchio and MuJoCo — "
      f"{time.strftime('%Y-%m-%d')}")
    w("")
    w("Command: `python benchmarks/urdf.py` (everything below, one run; "
      f"{time.perf_counter() - started:.0f} s). Machine: {platform.machine()}, "
      f"{os.cpu_count()} cores, Python {platform.python_version()}; {versions(PACKAGES)}.")
    w("")
    w(f"The robot: `{'/'.join(ROBOT)}` of example-robot-data on a floating base (32 revolute "
      "joints; nq = 39, nv = 38). How each tool reads it and what is measured: the docstring "
      "of `benchmarks/urdf.py`.")
    w("")
    for note in notes:
        w(f"- {note}")
    w("")
    w("## Building the robot from its URDF")
    w("")
    w(f"Median of {ROUNDS} rounds, the tools interleaved, after a first round (its time in "
      "the last column).")
    w("")
    w("| step | median | first round |")
    w("|---|---|---|")
    for name, (median, first) in builds.items():
        w(f"| {name} | {ms(median)} | {ms(first)} |")
    mbd_total = builds["mbd: from_urdf (URDF -> Model)"][0] + \
        builds["mbd: build() (Model -> System)"][0]
    pin_total = builds["Pinocchio: buildModelFromUrdf + JointModelFreeFlyer, createData"][0]
    mj_total = builds["MuJoCo: MjSpec.from_file + free joint, compile, MjData (without "
                      "geometry)"][0]
    mj_meshes = builds["MuJoCo: the same with the URDF's collision meshes"][0]
    w("")
    w(f"mbd's whole build (from_urdf + build()) {ms(mbd_total)}: **{mbd_total / pin_total:.1f}"
      f"x Pinocchio's**, **{mbd_total / mj_total:.1f}x MuJoCo's** without geometry "
      f"({mbd_total / mj_meshes:.2f}x MuJoCo's with its meshes).")
    w("")
    w("## One forward-dynamics evaluation")
    w("")
    w(f"Per evaluation, at {STATES} random states (median of {ROUNDS} rounds, the measures "
      "interleaved). ~: the per-call time less the tool's Python-call overhead (the same "
      "call on a one-joint pendulum), an estimate of the compiled cost.")
    w("")
    w("| route | mbd | Pinocchio | MuJoCo | mbd / Pinocchio | mbd / MuJoCo |")
    w("|---|---|---|---|---|---|")
    loop, sim, python = cost["mbd_loop"], cost["mbd_sim"], cost["mbd_python"]
    aba, fwd = cost["pin_aba"], cost["mj_forward"]
    aba_c = aba - cost["pin_overhead"]
    fwd_c = fwd - cost["mj_overhead"]
    euler, rk4 = cost["mj_euler"], cost["mj_rk4"]
    w(f"| called from Python, per call | {us(python)} (`Evaluator.call` of the right-hand "
      f"side) | {us(aba)} (`pin.aba`) | {us(fwd)} (`mj_forward`) | {python / aba:.2f} | "
      f"{python / fwd:.2f} |")
    w(f"| Python-call overhead (a one-joint pendulum) | {us(cost['mbd_overhead'])} | "
      f"{us(cost['pin_overhead'])} | {us(cost['mj_overhead'])} | | |")
    w(f"| compiled, no Python per evaluation | {us(loop)} (the right-hand side in a numba "
      f"loop) | ~{us(aba_c)} (`pin.aba` less the overhead) | ~{us(fwd_c)} (`mj_forward` "
      f"less the overhead) | {loop / aba_c:.2f} | {loop / fwd_c:.2f} |")
    w(f"| inside an integration, per evaluation | {us(sim)} (compiled DOP853: wall / "
      f"{stats['nfev']} evaluations) | ~{us(aba_c)} | {us(euler)} (`mj_step` Euler: wall / "
      f"steps); {us(rk4)} (RK4: wall / 4 steps) | {sim / aba_c:.2f} | {sim / euler:.2f} "
      f"(Euler), {sim / rk4:.2f} (RK4) |")
    w("")
    w(f"- mbd's right-hand side is `{variant}` (the floating base is a SixDof: three "
      "prismatic primitives and a spherical one, so ABA in link coordinates over 36 links, "
      "where Pinocchio and MuJoCo have one free joint); it returns dq/dt too (the "
      "quaternion's rate). `pin.aba` returns the accelerations; `mj_forward` computes "
      "positions, the mass matrix by CRB and its sparse factorization, RNE and the "
      "accelerations")
    w(f"- mbd's timed run: {SIM_T:g} s of the robot falling freely from a random state "
      f"(rtol = atol = 1e-8): {stats['nfev']} evaluations, {stats['nsteps']} steps, "
      f"{ms(cost['mbd_sim'] * stats['nfev'])}; its wall time includes the integrator's own "
      f"work (error estimates, step control, output) and `simulate`'s fixed cost, "
      f"{ms(cost['mbd_short'])} (a {SHORT_T:g} s run of one step); without it "
      f"{us(cost['mbd_marginal'])} per evaluation")
    w(f"- MuJoCo's loops: {MJ_STEPS} steps of {MJ_DT:g} s from a random state, "
      "`mj_step(model, data, nstep)` in C; RK4's four evaluations a step share one step's "
      "bookkeeping")
    w("- reading: below 1 mbd is faster. The fair pairs are the rows: per call from Python, "
      "and the compiled cost with no Python (Pinocchio has no compiled loop callable from "
      "Python: its compiled cost is estimated by taking off the call overhead)")
    w("")
    headline = {"build_pin": mbd_total / pin_total, "build_mj": mbd_total / mj_total,
                "python_pin": python / aba, "python_mj": python / fwd,
                "compiled_pin": loop / aba_c, "compiled_mj": loop / fwd_c,
                "sim_mj_euler": sim / euler}
    return "\n".join(lines), headline


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(HERE, "URDF.md"))
    args = parser.parse_args(argv)
    from mbd.model.files import atomic_open
    text, headline = report()
    print(text)
    print("headline ratios: " + ", ".join(f"{k} {v:.2f}" for k, v in headline.items()))
    with atomic_open(args.out) as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
