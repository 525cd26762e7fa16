"""URDF import (:func:`mbd.from_urdf`, SPEC §10) against Pinocchio on example-robot-data's
robots: mass matrix, bias forces and forward dynamics joint by joint (UR5, Panda, Solo-12
floating, TALOS floating), a 1 s UR5 run against Pinocchio's aba integrated by scipy, every
robot of the package imported (or refused for a reason named), bad input named, and an
imported model edited.

Coordinates. mbd and Pinocchio name the joints alike (the URDF's names; ``root_joint`` for
the floating base) but lay them out differently, so everything is compared joint by joint,
by name, through a map v_pin = T(q) v_mbd:

- revolute, prismatic: the same coordinate (T = 1);
- continuous: Pinocchio's q is (cos θ, sin θ) (nq = 2, nv = 1), mbd's the angle θ (T = 1);
- floating base (mbd's ``SixDof``: q = (x, y, z, w, qx, qy, qz), v = (world velocity of the
  root frame's origin, angular velocity in the root frame's axes); Pinocchio's free flyer:
  q = (x, y, z, qx, qy, qz, qw), v = (the origin's velocity in the root frame's axes, the same
  angular velocity)): T = blockdiag(R^T, I3), R the root frame's axes in the world;
- planar (mbd: q = (x, y, φ), rates along the joint frame's fixed axes; Pinocchio: q = (x, y,
  cos φ, sin φ), rates in the moving frame): T = blockdiag(R2(φ)^T, 1).

T depends on q, so T' = dT/dt (v) enters the accelerations: a_pin = T a_mbd + T' v_mbd. With
tau_mbd = T^T tau_pin (the same power), Pinocchio's M_pin a_pin + b_pin = tau_pin becomes
mbd's M_mbd a_mbd + b_mbd = tau_mbd with

    M_mbd = T^T M_pin T,    b_mbd = T^T (b_pin + M_pin T' v_mbd).

The T' v term (for the free flyer -ω x (R^T v_lin), the rate of the root's axes) is a
velocity product: at random velocities it is as large as the Coriolis forces, and the test
checks that leaving it out fails.
"""
import glob
import os
import re
import site
import sys
import sysconfig
import warnings
import zlib

import numpy as np
import pinocchio as pin
import pytest
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

import mbd
from forces import Damper, JointForce
from mbd.compiled import dynamics
from mbd.exchange.urdf import StartOutsideLimits
from mbd.run import evaluator
from mbd.run.evaluator import Evaluator

from .urdf_text import _inertial, _joint, _link, _urdf

# the comparisons are relative: max |mbd - Pinocchio| / max |Pinocchio| over the quantity
RTOL = 1e-9


def _robots_folder():
    """example-robot-data's ``robots`` folder: the PyPI wheel puts it under
    ``cmeel.prefix/share`` of the site-packages that holds it."""
    paths = sysconfig.get_paths()
    places = [paths["purelib"], paths["platlib"], paths["data"], *site.getsitepackages(),
              site.getusersitepackages(), *sys.path]
    for place in places:
        folder = os.path.join(place, "cmeel.prefix", "share", "example-robot-data", "robots")
        if os.path.isdir(folder):
            return folder
    raise RuntimeError("example-robot-data is not installed (the test extra installs it): no "
                       f"cmeel.prefix/share/example-robot-data/robots under {places}")


ROBOTS = _robots_folder()
#: the folder ``package://example-robot-data/...`` mesh paths are found in
SHARE = os.path.dirname(os.path.dirname(ROBOTS))


def rel_error(a, b):
    """max |a - b| / max |b| (b the reference)."""
    return float(np.abs(np.asarray(a) - b).max() / max(np.abs(b).max(), 1e-300))


def skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


class Pair:
    """An mbd system and the Pinocchio model of the same URDF, and the map between their
    coordinates (see the module docstring), joint by joint by name."""

    def __init__(self, system, pmodel):
        self.system, self.pmodel, self.pdata = system, pmodel, pmodel.createData()
        self.joints = []                   # (kind, pinocchio joint, mbd JointMap)
        for i, name in enumerate(pmodel.names[1:], start=1):
            pj = pmodel.joints[i]
            assert name in system.joints, f"Pinocchio's joint '{name}' is not mbd's"
            jm = system.joints[name]
            assert not jm.reversed
            short = pj.shortname()
            if short == "JointModelFreeFlyer":
                kind = "free"
            elif short == "JointModelPlanar":
                kind = "planar"
            elif pj.nq == 2 and pj.nv == 1:
                kind = "continuous"
            else:
                assert pj.nq == pj.nv == 1, short
                kind = "prismatic" if "Prismatic" in short else "revolute"
            assert len(jm.v_index) == pj.nv, name
            self.joints.append((kind, pj, jm))
        assert pmodel.nv == system.nv   # every mbd coordinate is one of Pinocchio's

    def random_state(self, rng):
        """A random mbd (q, v): angles anywhere, prismatic joints within their limits (or
        +-0.2 m), a floating base anywhere near the origin with a random orientation;
        rates ~ 1 rad/s or m/s."""
        s, pm = self.system, self.pmodel
        q, v = np.zeros(s.nq), rng.normal(size=s.nv)
        for kind, pj, jm in self.joints:
            if kind == "free":
                quat = rng.normal(size=4)
                q[jm.q_index] = np.r_[rng.normal(size=3), quat / np.linalg.norm(quat)]
            elif kind == "prismatic":
                lo, hi = pm.lowerPositionLimit[pj.idx_q], pm.upperPositionLimit[pj.idx_q]
                finite = np.isfinite(lo) and np.isfinite(hi) and lo < hi and hi - lo < 10
                q[jm.q_index] = rng.uniform(lo, hi) if finite else rng.uniform(-0.2, 0.2)
            else:
                q[jm.q_index] = rng.uniform(-np.pi, np.pi, len(jm.q_index))
        return q, v

    def pin_q(self, q):
        """Pinocchio's configuration of mbd's q."""
        out = np.zeros(self.pmodel.nq)
        for kind, pj, jm in self.joints:
            x, i = q[jm.q_index], pj.idx_q
            if kind == "free":             # (p, w, x, y, z) -> (p, x, y, z, w)
                out[i:i + 7] = np.r_[x[:3], x[4:], x[3]]
            elif kind == "continuous":     # θ -> (cos θ, sin θ)
                out[i:i + 2] = np.cos(x[0]), np.sin(x[0])
            elif kind == "planar":         # (x, y, φ) -> (x, y, cos φ, sin φ)
                out[i:i + 4] = x[0], x[1], np.cos(x[2]), np.sin(x[2])
            else:
                out[i] = x[0]
        return out

    def transform(self, q, v):
        """(T, T'): v_pin = T v_mbd (pinocchio.nv, mbd.nv) and its rate at (q, v)."""
        T = np.zeros((self.pmodel.nv, self.system.nv))
        Tdot = np.zeros_like(T)
        for kind, pj, jm in self.joints:
            rows = np.arange(pj.idx_v, pj.idx_v + pj.nv)
            T[rows, jm.v_index] = 1.0
            if kind == "free":
                w, x, y, z = q[jm.q_index[3:]]
                R = Rotation.from_quat([x, y, z, w]).as_matrix()   # root axes in the world
                lin = np.ix_(rows[:3], jm.v_index[:3])
                T[lin] = R.T
                # d(R^T)/dt = -[ω]x R^T, ω the angular velocity in the root's axes
                Tdot[lin] = -skew(v[jm.v_index[3:]]) @ R.T
            elif kind == "planar":
                phi, rate = q[jm.q_index[2]], v[jm.v_index[2]]
                c, s = np.cos(phi), np.sin(phi)
                lin = np.ix_(rows[:2], jm.v_index[:2])
                T[lin] = [[c, s], [-s, c]]                        # R2(φ)^T
                Tdot[lin] = rate * np.array([[-s, c], [-c, -s]])
        return T, Tdot

    def pinocchio(self, q, v, tau):
        """Pinocchio's (M, b, a) at mbd's (q, v) under mbd's generalized forces tau, in
        Pinocchio's coordinates."""
        pm, pd = self.pmodel, self.pdata
        T, _ = self.transform(q, v)
        qp, vp = self.pin_q(q), T @ v
        tau_p = np.linalg.solve(T.T, tau)             # tau_mbd = T^T tau_pin
        M = pin.crba(pm, pd, qp)
        M = np.triu(M) + np.triu(M, 1).T             # crba may fill the upper triangle only
        b = pin.nonLinearEffects(pm, pd, qp, vp)
        np.testing.assert_allclose(b, pin.rnea(pm, pd, qp, vp, np.zeros(pm.nv)), rtol=1e-12,
                                   atol=1e-12 * np.abs(b).max())
        return M, b, pin.aba(pm, pd, qp, vp, tau_p)


def load(relpath, floating=False, **options):
    """(mbd model, Pinocchio model) of a URDF of example-robot-data; ``options`` go to
    ``from_urdf``."""
    path = os.path.join(ROBOTS, relpath)
    model = mbd.from_urdf(path, package_dirs=[SHARE], floating=floating, **options)
    pmodel = (pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating
              else pin.buildModelFromUrdf(path))
    return model, pmodel


def without_mimic(model):
    """The model without its mimic gears: Pinocchio's tree (built without mimic support)
    moves the mimicking joint freely, and a gear is a constraint row the tree's dynamics do
    not have."""
    model.elements = [e for e in model.elements if not isinstance(e, mbd.GearConstraint)]
    return model


# the four robots: a 6-DOF arm, a 7-DOF arm with two finger slides (one mimics the other), a
# floating-base quadruped and a floating-base humanoid
FOUR = {"ur5": ("ur_description/urdf/ur5_robot.urdf", False),
        "panda": ("panda_description/urdf/panda.urdf", False),
        "solo12": ("solo_description/robots/solo12.urdf", True),
        "talos": ("talos_data/robots/talos_reduced.urdf", True)}


@pytest.mark.parametrize("robot", list(FOUR))
def test_dynamics_equal_pinocchios(robot):
    """M, b (nle = rnea at a = 0) and the forward dynamics at 20 random states equal
    Pinocchio's crba, nonLinearEffects and aba to 1e-9, joint by joint by name.

    limits="ignore" and dynamics=False: an end stop (``<limit>``) and a damper or stiction
    element (``<dynamics>``) are force elements mbd adds, which Pinocchio's crba/rnea/aba
    do not have; mbd's tree functions (mbd.compiled.dynamics) leave force elements out
    anyway, but its right-hand side, also compared here, has them."""
    relpath, floating = FOUR[robot]
    model, pmodel = load(relpath, floating, limits="ignore", dynamics=False)
    if robot == "panda":
        gear = [e for e in model.elements if isinstance(e, mbd.GearConstraint)]
        assert [(g.name, g.ratio) for g in gear] == [("panda_finger_joint2_mimic", 1.0)]
        without_mimic(model)
    system = model.build()
    assert not system.constrained and not system.force_elements
    np.testing.assert_array_equal(pmodel.gravity.linear, [0.0, 0.0, -9.81])  # mbd's default
    pair = Pair(system, pmodel)
    sd = Evaluator(system)
    nw = evaluator.work_size(system)
    rng = np.random.default_rng(20240528)
    worst = {}
    for _ in range(20):
        q, v = pair.random_state(rng)
        tau = 10.0 * rng.normal(size=system.nv)     # N m or N: of gravity's order
        T, Tdot = pair.transform(q, v)
        M_pin, b_pin, a_pin = pair.pinocchio(q, v, tau)
        errors = {
            "M": rel_error(dynamics.mass_matrix(system, q), T.T @ M_pin @ T),
            "b": rel_error(dynamics.bias_forces(system, q, v),
                           T.T @ (b_pin + M_pin @ Tdot @ v)),
        }
        for method in ("aba", "aba-world", "crba"):   # three routes to the accelerations
            a = dynamics.accelerations(system, q, v, tau, method=method)
            errors[f"a ({method})"] = rel_error(T @ a + Tdot @ v, a_pin)
        # the other way round: Pinocchio's accelerations back in mbd's coordinates
        a_back = np.linalg.solve(T, a_pin - Tdot @ v)
        errors["a (back)"] = rel_error(dynamics.accelerations(system, q, v, tau), a_back)
        # the right-hand side the integrators call (no force applied: tau = 0)
        dy, status = sd.derivative(0.0, np.r_[q, v, np.zeros(nw)])
        assert status == 0
        a_free = pin.aba(pmodel, pair.pdata, pair.pin_q(q), T @ v, np.zeros(pmodel.nv))
        errors["a (rhs)"] = rel_error(T @ dy[system.nq:system.nq + system.nv] + Tdot @ v,
                                      a_free)
        if floating:     # the velocity-product term is needed: without it, b disagrees
            assert rel_error(dynamics.bias_forces(system, q, v), T.T @ b_pin) > 1e-4
        for name, e in errors.items():
            worst[name] = max(worst.get(name, 0.0), e)
    print(f"{robot}: nv {system.nv}, max relative errors " +
          ", ".join(f"{name} {e:.1e}" for name, e in worst.items()))
    assert max(worst.values()) < RTOL, worst


def test_panda_mimic_gear_holds_and_matches_the_reduced_dynamics():
    """With its mimic gear (q_finger2 = 1.0 q_finger1), the Panda's accelerations at a state
    on the constraint are Pinocchio's dynamics reduced to the independent coordinates, G^T
    (M G a_r + b) = 0 with v = G v_r; and a short run keeps the fingers together."""
    model, pmodel = load("panda_description/urdf/panda.urdf", limits="ignore",
                         dynamics=False)
    system = model.build()
    assert system.constrained and system.dof == system.nv - 1
    pair = Pair(system, pmodel)
    a_index = pmodel.joints[pmodel.getJointId("panda_finger_joint1")].idx_v
    b_index = pmodel.joints[pmodel.getJointId("panda_finger_joint2")].idx_v
    G = np.delete(np.eye(pmodel.nv), b_index, axis=1)      # v = G v_r: v_b = 1.0 v_a
    G[b_index, a_index if a_index < b_index else a_index - 1] = 1.0
    sd = Evaluator(system)
    nw = evaluator.work_size(system)
    f1, f2 = system.joints["panda_finger_joint1"], system.joints["panda_finger_joint2"]
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(5):
        q, v = pair.random_state(rng)
        q[f2.q_index], v[f2.v_index] = q[f1.q_index], v[f1.v_index]   # on the constraint
        M, b, _ = pair.pinocchio(q, v, np.zeros(system.nv))
        a_reduced = G @ np.linalg.solve(G.T @ M @ G, -G.T @ b)
        dy, status = sd.derivative(0.0, np.r_[q, v, np.zeros(nw)])
        assert status == 0
        worst = max(worst, rel_error(dy[system.nq:system.nq + system.nv], a_reduced))
    assert worst < RTOL, worst
    q0 = {"panda_joint2": 0.5, "panda_joint4": -1.5, "panda_finger_joint1": 0.02,
          "panda_finger_joint2": 0.02}
    v0 = {"panda_joint1": 1.0, "panda_finger_joint1": 0.05, "panda_finger_joint2": 0.05}
    res = system.simulate(0.2, output_step=0.01, rtol=1e-10, atol=1e-12, q0=q0, v0=v0)
    np.testing.assert_allclose(res.joint("panda_finger_joint2").q,
                               res.joint("panda_finger_joint1").q, rtol=0, atol=1e-10)
    assert np.ptp(res.joint("panda_finger_joint1").q) > 1e-3      # the fingers did move


def test_the_stock_panda_runs_with_its_default_stops():
    """The Panda as it comes (stops, its fingers at their lower limit tied by the mimic gear):
    only the leading finger has a stop (two stops on one gear-tied motion would touch at
    once, at round-off, and chatter); 0.3 s falling under gravity onto its joints' stops."""
    model = mbd.from_urdf(os.path.join(ROBOTS, "panda_description/urdf/panda.urdf"),
                          package_dirs=[SHARE], start="inside")  # joint 4's limits leave out 0
    names = {e.name for e in model.elements}
    assert "panda_finger_joint1_limit" in names and "panda_finger_joint2_limit" not in names
    result = model.build().simulate(0.3, output_step=0.01)
    np.testing.assert_allclose(result.joint("panda_finger_joint2").q,
                               result.joint("panda_finger_joint1").q, atol=1e-9)
    assert any("panda_joint" in e.element for e in result.events)     # the arm met a stop


def test_ur5_run_follows_pinocchio():
    """1 s of the UR5 falling under gravity from a bent pose: mbd's run (DOP853, rtol 1e-11)
    and Pinocchio's aba integrated by scipy's DOP853 (rtol 1e-10) agree on every joint angle
    at every output row to 1e-7 rad."""
    model, pmodel = load("ur_description/urdf/ur5_robot.urdf", limits="ignore",
                         dynamics=False)
    system = model.build()
    names = list(pmodel.names[1:])
    q0 = dict(zip(names, [0.3, -1.0, 1.2, -0.5, 0.8, 0.2]))
    assert all(pmodel.joints[i + 1].nq == 1 for i in range(len(names)))
    res = system.simulate(1.0, output_step=0.01, rtol=1e-11, atol=1e-12, q0=q0)
    assert len(res.t) == 101
    pdata, n = pmodel.createData(), pmodel.nv

    def rhs(t, y):
        return np.r_[y[n:], pin.aba(pmodel, pdata, y[:n], y[n:], np.zeros(n))]

    y0 = np.r_[[q0[name] for name in names], np.zeros(n)]
    ref = solve_ivp(rhs, (0.0, 1.0), y0, method="DOP853", rtol=1e-10, atol=1e-12, t_eval=res.t)
    assert ref.success
    q_mbd = np.column_stack([res.joint(name).q for name in names])
    error = np.abs(q_mbd - ref.y[:n].T).max()
    print(f"ur5 1 s run: max joint angle difference {error:.1e} rad")
    assert error < 1e-7
    assert np.ptp(q_mbd, axis=0).max() > 1.0          # the arm swung through a wide motion


def test_imported_model_is_editable():
    """The UR5 as imported (end stops at its limits) plus a damper on the elbow and two
    sensors: the sensors read the run, the damper dissipates what the energy balance says,
    and the motion is Pinocchio's with the damper's torque -d q'_elbow added (the stops,
    at +-2 pi, stay open)."""
    model, pmodel = load("ur_description/urdf/ur5_robot.urdf")
    assert "elbow_joint_limit" in [e.name for e in model.elements]
    elbow = next(e for e in model.elements if e.name == "elbow_joint")
    d = 20.0
    model.add(JointForce("elbow_damper", elbow, Damper(d=d)))
    model.add(mbd.Sensor("elbow_angle", "elbow_joint.q"))
    model.add(mbd.Sensor("tool_height", "wrist_3_link.ee_link.z"))
    system = model.build()
    names = list(pmodel.names[1:])
    q0 = dict(zip(names, [0.0, -0.8, 1.0, 0.3, 0.5, 0.0]))
    res = system.simulate(0.2, output_step=0.01, rtol=1e-10, atol=1e-12, q0=q0)
    np.testing.assert_array_equal(res.sensor("elbow_angle"), res.joint("elbow_joint").q)
    np.testing.assert_allclose(res.sensor("tool_height"),
                               res.body("wrist_3_link").position("ee_link")[:, 2], atol=1e-12)
    balance = res.energy_balance()
    assert balance.dissipated["elbow_damper"][-1] > 1e-3
    assert np.abs(balance.residual).max() < 1e-8 * balance.scale
    pdata, n = pmodel.createData(), pmodel.nv
    k = names.index("elbow_joint")

    def rhs(t, y):
        tau = np.zeros(n)
        tau[k] = -d * y[n + k]
        return np.r_[y[n:], pin.aba(pmodel, pdata, y[:n], y[n:], tau)]

    ref = solve_ivp(rhs, (0.0, 0.2), np.r_[[q0[name] for name in names], np.zeros(n)],
                    method="DOP853", rtol=1e-10, atol=1e-12, t_eval=res.t)
    q_mbd = np.column_stack([res.joint(name).q for name in names])
    assert np.abs(q_mbd - ref.y[:n].T).max() < 1e-7


# ------------------------------------------------------------------- every robot of the folder

ALL = sorted(os.path.relpath(p, ROBOTS) for p in
             glob.glob(os.path.join(ROBOTS, "*", "urdf", "*.urdf"))
             + glob.glob(os.path.join(ROBOTS, "*", "robots", "*.urdf")))

#: robots mbd refuses, and the reason its message must give: joints that move no inertia
#: (Pinocchio's aba gives NaN there), an inertia no rigid body has (a negative principal
#: moment; a body violating the triangle inequality), a mimic of a joint the file lacks, or a
#: file that is no robot.
REFUSED = {
    # hands whose links have no mass, moved by revolute joints (all mimics of LHand, RHand)
    "romeo_description/urdf/romeo.urdf":
        r"joints \['LFinger12', .*'LHand', .*'RThumb3'\] move no inertia in any position: "
        r"the bodies carried .*\['LFinger11Link', ",
    # moving links whose inertia violates the triangle inequality (and negative moments)
    "romeo_description/urdf/romeo_laas_small.urdf":
        r"URDF link 'LHipPitch_link': inertia .* is not positive semidefinite",
    "romeo_description/urdf/romeo_small.urdf":
        r"URDF link 'RShoulderYawLink': mass 0.57151 kg, .* violates the triangle inequality",
    # a mimic of a joint the file does not have (its xacro prefix missing: 'index_q1' for
    # 'Left_index_q1'; Pinocchio ignores mimics)
    "alex_description/urdf/alex_psyonic_hands.urdf":
        r"URDF joint 'Left_index_q2' mimics 'index_q1', which is no movable joint",
    # an empty <robot> (an xacro header with nothing expanded)
    "ur_description/urdf/ur3.urdf": r"<robot> has no name attribute and no <link>",
}

#: refused robots that import with from_urdf's options, and then equal Pinocchio's model of
#: the same robot (``pinocchio`` makes it from Pinocchio's model of the file)
MENDED = {
    # the hands locked (the mimics with them): Pinocchio's buildReducedModel locks the same
    # 24 joints, found here by name, at 0
    "romeo_description/urdf/romeo.urdf": (
        dict(lock=["LHand", "RHand"]),
        lambda pm: pin.buildReducedModel(
            pm, [pm.getJointId(n) for n in pm.names[1:] if "Finger" in n or "Thumb" in n
                 or n.endswith("Hand")], pin.neutral(pm))),
    # the mimics read as Pinocchio reads them: each joint moves on its own
    "alex_description/urdf/alex_psyonic_hands.urdf": (dict(mimic=False), lambda pm: pm),
}

#: robots singular at their zero pose only, and what build()'s warning must say: iCub's head
#: is a point mass on the neck's roll and yaw axes there (Pinocchio's crba has an eigenvalue
#: 4e-18 of 0.63 there too); every other robot builds without a warning
WARNED = {"icub_description/robots/icub.urdf":
          r"joints \['neck_roll', 'neck_yaw'\] together move no inertia at the initial "
          r"position: the bodies carried .* \(\['neck_2', 'head'\]\)"}

#: single-link robots (a quadrotor's body): nothing moves on a fixed base; imported floating
FLOATING = {"hector_description/robots/quadrotor_base.urdf",
            "iris_description/robots/iris_simple.urdf"}


def outside_at_zero(path):
    """{joint: (lower, upper)} of the URDF's joints with an end stop (revolute or prismatic,
    no mimic, lower < upper) whose limits leave out their zero, read with the standard
    library."""
    import xml.etree.ElementTree as ET
    out = {}
    for joint in ET.parse(path).getroot().iter("joint"):
        limit = joint.find("limit")
        if (joint.get("type") in ("revolute", "prismatic") and limit is not None
                and joint.find("mimic") is None):
            lower, upper = float(limit.get("lower", 0)), float(limit.get("upper", 0))
            if lower < upper and not lower <= 0.0 <= upper:
                out[joint.get("name")] = (lower, upper)
    return out


def test_the_folder_is_the_one_listed():
    """The lists above name files that are there (a renamed robot must not pass unseen)."""
    assert len(ALL) > 60
    assert set(REFUSED) | FLOATING | {path for path, _ in FOUR.values()} <= set(ALL)
    assert set(MENDED) <= set(REFUSED)
    assert list(outside_at_zero(os.path.join(ROBOTS, "kinova_description/robots/"
                                             "kinova.urdf"))) == [
        "j2s6s200_joint_2", "j2s6s200_joint_3", "j2s6s200_joint_5"]


@pytest.mark.parametrize("relpath", ALL)
def test_every_robot_imports_and_matches_pinocchio(relpath):
    """Every URDF of example-robot-data imports as it is (end stops, dampers, stiction,
    mimic gears, visuals with their meshes) and builds, and its mass matrix equals
    Pinocchio's at one random state; or mbd refuses it for the reason REFUSED names, and
    then, with the options MENDED gives, imports and equals Pinocchio's model of it. A robot
    whose zero pose lies outside some joints' limits (the Kinova, the Panda's fourth joint,
    quadrupeds' knees) is warned of and refused by build(), naming each of those joints,
    and compared started inside (start="inside")."""
    path = os.path.join(ROBOTS, relpath)
    options = {}
    outside = outside_at_zero(path)
    if outside and relpath not in REFUSED:
        with pytest.warns(StartOutsideLimits):
            plain = mbd.from_urdf(path, package_dirs=[SHARE], floating=relpath in FLOATING)
        with pytest.raises(mbd.ModelError) as err:
            plain.build()
        for name, (lower, upper) in outside.items():
            assert f"'{name}' starts at 0 " in str(err.value), name
            assert f"limits [{lower:.6g}, {upper:.6g}]" in str(err.value), name
        options = {"start": "inside"}
    reduce = None
    if relpath in REFUSED:
        with pytest.raises(mbd.ModelError, match=REFUSED[relpath]):
            mbd.from_urdf(path, package_dirs=[SHARE]).build()
        if relpath not in MENDED:
            return
        options, reduce = MENDED[relpath]
    floating = relpath in FLOATING
    model, pmodel = load(relpath, floating, **options)
    if reduce is not None:
        pmodel = reduce(pmodel)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        system = model.build()
    said = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    if relpath in WARNED:
        assert len(said) == 1 and re.search(WARNED[relpath], said[0]), said
    else:
        assert not said
    pair = Pair(system, pmodel)
    q, v = pair.random_state(np.random.default_rng(zlib.crc32(relpath.encode())))
    T, _ = pair.transform(q, v)
    M_pin, _, _ = pair.pinocchio(q, v, np.zeros(system.nv))
    assert rel_error(dynamics.mass_matrix(system, q), T.T @ M_pin @ T) < RTOL


# ------------------------------------------------------------------- floating and planar joints

def test_floating_and_planar_joints_equal_pinocchios(tmp_path):
    """A URDF ``floating`` joint in the middle of a chain and a ``planar`` one (axis z, the
    only one Pinocchio's parser turns the plane for), after a continuous joint with a skew
    axis: M, b and the accelerations at 20 random states equal Pinocchio's."""
    path = _urdf(tmp_path, _link("base") + _link("a") + _link("b") + _link("c")
                 + _joint("hinge", "continuous", "base", "a", axis="0.3 0.5 0.8")
                 + _joint("free", "floating", "a", "b")
                 + _joint("slide", "planar", "b", "c"))
    system = mbd.from_urdf(path).build()
    assert system.nv == 10
    pair = Pair(system, pin.buildModelFromUrdf(str(path)))
    assert [kind for kind, _, _ in pair.joints] == ["continuous", "free", "planar"]
    assert worst_of_20_states(pair) < RTOL


def worst_of_20_states(pair, methods=("aba",)):
    """The largest relative error of M, b and the accelerations (by each of ``methods``)
    against Pinocchio's at 20 random states."""
    system = pair.system
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(20):
        q, v = pair.random_state(rng)
        tau = rng.normal(size=system.nv)
        T, Tdot = pair.transform(q, v)
        M, b, a = pair.pinocchio(q, v, tau)
        worst = max(worst, rel_error(dynamics.mass_matrix(system, q), T.T @ M @ T),
                    rel_error(dynamics.bias_forces(system, q, v), T.T @ (b + M @ Tdot @ v)),
                    *(rel_error(T @ dynamics.accelerations(system, q, v, tau, method=m)
                                + Tdot @ v, a) for m in methods))
    return worst


def test_a_link_named_as_a_joint(tmp_path):
    """URDF names links and joints apart (so_arm's so100 has a link and a joint 'gripper'):
    the joint keeps its name, the link's body is 'gripper_link', and the joint's CS on that
    body is 'gripper_joint' (the body's CS 'gripper' is the link's frame)."""
    path = _urdf(tmp_path, _link("base") + _link("gripper") + _link("jaw")
                 + _joint("wrist", "continuous", "base", "gripper")
                 + _joint("gripper", "continuous", "gripper", "jaw", axis="1 0 0"))
    model = mbd.from_urdf(path)
    assert [b.name for b in model.bodies] == ["gripper_link", "jaw"]
    body = model.bodies[0]
    assert {"gripper", "gripper_joint", "wrist"} <= set(body.frames)
    system = model.build()
    assert set(system.joints) == {"wrist", "gripper"}
    pair = Pair(system, pin.buildModelFromUrdf(str(path)))
    q, v = pair.random_state(np.random.default_rng(1))
    assert rel_error(dynamics.mass_matrix(system, q), pair.pinocchio(q, v, 0 * v)[0]) < RTOL


def test_a_fixed_links_made_up_inertia_is_summed(tmp_path):
    """A sensor frame fixed to a link, with an inertia no rigid body has (PR2's
    sensor_mount_link: (0.001, 0.001, 0.01), past the triangle inequality) and a massless
    one with a rotational inertia (Bolt's feet): both add to the body, as in Pinocchio,
    which is then a rigid body's."""
    path = _urdf(tmp_path, _link("base") + _link("arm")
                 + _link("sensor", _inertial(0.1, inertia=(0.001, 0.001, 0.01, 0, 0, 0)))
                 + _link("foot", _inertial(0.0, inertia=(5.7e-4, 8.4e-4, 5.3e-4, 0, 0, 0)))
                 + _joint("hinge", "continuous", "base", "arm", axis="0 1 0")
                 + _joint("mount", "fixed", "arm", "sensor")
                 + _joint("ankle", "fixed", "arm", "foot", xyz="0 0 -0.3"))
    system = mbd.from_urdf(path).build()
    assert [b for b in system.bodies] == ["arm"]
    pair = Pair(system, pin.buildModelFromUrdf(str(path)))
    q = np.array([0.4])
    M = pair.pinocchio(q, np.zeros(1), np.zeros(1))[0]
    assert rel_error(dynamics.mass_matrix(system, q), M) < 1e-12


# ------------------------------------------------------------------- bad input, named

BODY = _link("a") + _link("b")


def test_missing_mesh_names_the_file_and_the_link(tmp_path):
    visual = ('<visual><geometry><mesh filename="meshes/gone.stl"/></geometry></visual>')
    path = _urdf(tmp_path, _link("a") + f'<link name="b">{_inertial()}{visual}</link>'
                 + _joint("j", "continuous", "a", "b"))
    with pytest.raises(mbd.ModelError, match=r"URDF link 'b': mesh file 'meshes/gone.stl' "
                                             r"not found \(looked in \['.*meshes/gone.stl'\]\)"):
        mbd.from_urdf(path)
    package = visual.replace("meshes/gone.stl", "package://robot_pkg/meshes/gone.stl")
    path = _urdf(tmp_path, _link("a") + f'<link name="b">{_inertial()}{package}</link>'
                 + _joint("j", "continuous", "a", "b"))
    with pytest.raises(mbd.ModelError, match="URDF link 'b': mesh file 'package://robot_pkg/"
                                             "meshes/gone.stl' not found .* package_dirs"):
        mbd.from_urdf(path, package_dirs=[str(tmp_path)])


@pytest.mark.parametrize("kind", ["spherical", "helical"])
def test_a_joint_type_mbd_lacks(tmp_path, kind):
    # yourdfpy reads any type; mbd names the joint, the type and the ones it reads
    path = _urdf(tmp_path, BODY + _joint("ball", kind, "a", "b"))
    with pytest.raises(mbd.ModelError, match=f"URDF joint 'ball': type '{kind}' is not one "
                                             r"mbd reads \(revolute, continuous, prismatic, "
                                             r"fixed, floating, planar\)"):
        mbd.from_urdf(path)


def test_an_inertia_no_rigid_body_has(tmp_path):
    negative = _inertial(2.0, inertia=(0.01, 0.01, -0.01, 0, 0, 0))
    path = _urdf(tmp_path, _link("a") + _link("b", negative)
                 + _joint("j", "continuous", "a", "b"))
    with pytest.raises(mbd.ModelError) as err:
        mbd.from_urdf(path)
    # one message, naming the link and the values (not also "no mass" for the refused link)
    assert str(err.value) == ("URDF link 'b': inertia [[0.01, 0.0, 0.0], [0.0, 0.01, 0.0], "
                              "[0.0, 0.0, -0.01]] kg m^2 is not positive semidefinite "
                              "(principal moments [-0.01, 0.01, 0.01])")
    lopsided = _inertial(2.0, inertia=(0.001, 0.001, 0.01, 0, 0, 0))
    path = _urdf(tmp_path, _link("a") + _link("b", lopsided)
                 + _joint("j", "continuous", "a", "b"))
    with pytest.raises(mbd.ModelError, match=r"URDF link 'b': mass 2.0 kg, inertia "
                                             r"\[\[0.001, 0.0, 0.0\], .* its inertia violates "
                                             "the triangle inequality"):
        mbd.from_urdf(path)
    # an exported zero (1e-20, which alone breaks the triangle inequality) is a point mass
    point = _inertial(2.0, inertia=(0, 0, 1e-20, 0, 0, 0))
    path = _urdf(tmp_path, _link("a") + _link("b", point)
                 + _joint("j", "continuous", "a", "b"))
    body = mbd.from_urdf(path).bodies[0]
    assert body.mass == 2.0 and not body.inertia.any()


def test_a_kinematic_loop(tmp_path):
    # yourdfpy reads a link with two parent joints; mbd names the link and both joints
    limit = '<limit lower="-1" upper="1" effort="1" velocity="1"/>'
    path = _urdf(tmp_path, BODY + _link("c") + _joint("j1", "revolute", "a", "b", extra=limit)
                 + _joint("j2", "revolute", "a", "c", extra=limit)
                 + _joint("j3", "revolute", "c", "b", extra=limit))
    with pytest.raises(mbd.ModelError, match="URDF link 'b' is the child of two joints, 'j1' "
                                             "and 'j3': a kinematic loop"):
        mbd.from_urdf(path)
    path = _urdf(tmp_path, BODY + _joint("j1", "continuous", "a", "b")
                 + _joint("j2", "continuous", "b", "a"))
    with pytest.raises(mbd.ModelError, match="every link is the child of a joint, so the "
                                             "joints close a kinematic loop"):
        mbd.from_urdf(path)


def test_a_mimic_with_an_offset_holds_it(tmp_path):
    """q_j2 = 2 q_j1 + 0.5: assembly brings the zero pose onto the gear, and a run keeps it
    to the projection's tolerance."""
    path = _urdf(tmp_path, BODY + _link("c") + _joint("j1", "continuous", "a", "b")
                 + _joint("j2", "continuous", "b", "c",
                          extra='<mimic joint="j1" multiplier="2" offset="0.5"/>'))
    result = mbd.from_urdf(path).build().simulate(0.3, output_step=0.01, rtol=1e-10,
                                                    atol=1e-12)
    q1, q2 = result.joint("j1").q, result.joint("j2").q
    # assembly moved the zero pose onto the gear (both joints, least squares: q1 = -0.2)
    assert abs(q2[0] - 0.5 - 2.0 * q1[0]) < 1e-10 and q1[0] != 0.0
    np.testing.assert_allclose(q2, 2.0 * q1 + 0.5, atol=1e-9)
    assert np.ptp(q1) > 1e-3                                  # it moved


def test_a_mimic_of_no_joint_is_named(tmp_path):
    path = _urdf(tmp_path, BODY + _link("c") + _joint("j1", "continuous", "a", "b")
                 + _joint("j2", "continuous", "b", "c", extra='<mimic joint="q1"/>'))
    with pytest.raises(mbd.ModelError, match="URDF joint 'j2' mimics 'q1', which is no "
                                             r"movable joint of the robot \(mimic=False"):
        mbd.from_urdf(path)
    # read as Pinocchio reads it: j2 moves on its own
    assert mbd.from_urdf(path, mimic=False).build().nv == 2


def test_massless_links_and_point_masses_equal_pinocchios(tmp_path):
    """A ball-and-socket hip as human.urdf writes it (three revolutes at one point through two
    massless "virtual" links) and a point mass (a zero inertia) on a hinge beyond it: M, b
    and the accelerations by three routes at 20 random states equal Pinocchio's, and a run
    of the free mechanism keeps its energy."""
    point = ('<link name="e"><inertial><origin xyz="0.3 0 0"/><mass value="0.7"/>'
             '<inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>')
    path = _urdf(tmp_path, _link("a") + '<link name="b"/><link name="c"/>' + _link("d")
                 + point + _joint("hip_z", "continuous", "a", "b")
                 + _joint("hip_x", "continuous", "b", "c", axis="1 0 0", xyz="0 0 0",
                          rpy="0 0 0")
                 + _joint("hip_y", "continuous", "c", "d", axis="0 1 0", xyz="0 0 0",
                          rpy="0 0 0")
                 + _joint("knee", "continuous", "d", "e", axis="0 1 0"))
    system = mbd.from_urdf(path).build()
    assert system.nv == 4
    assert mbd.from_urdf(path).bodies[1].mass == 0.0          # 'b': massless
    pair = Pair(system, pin.buildModelFromUrdf(str(path)))
    assert worst_of_20_states(pair, methods=("aba", "aba-world", "crba")) < RTOL
    result = system.simulate(0.5, output_step=0.01, rtol=1e-10, atol=1e-12,
                             v0={"hip_z": 1.0, "knee": -2.0})
    energy = result.energy()
    assert np.ptp(energy) < 1e-7 * np.abs(energy).max()


def test_a_joint_that_moves_only_a_massless_link_is_named(tmp_path):
    path = _urdf(tmp_path, _link("a") + _link("b") + '<link name="c"/>'
                 + _joint("j1", "continuous", "a", "b") + _joint("j2", "continuous", "b", "c"))
    model = mbd.from_urdf(path)
    with pytest.raises(mbd.ModelError, match=r"joint 'j2' moves no inertia in any position: "
                                             r"the bodies carried .* \(\['c'\]\) .* from_urdf\(lock="):
        model.build()


def test_locked_joints_equal_pinocchios_reduced_model():
    """The UR5 with its elbow locked at -1.1 rad and its last wrist joint at 0.7 rad equals
    Pinocchio's buildReducedModel of the same joints at the same angles."""
    locked = {"elbow_joint": -1.1, "wrist_3_joint": 0.7}
    model, pmodel = load(FOUR["ur5"][0], lock=locked, limits="ignore", dynamics=False)
    system = model.build()
    assert system.nv == 4 and not set(locked) & set(system.joints)
    q_ref = pin.neutral(pmodel)
    for name, value in locked.items():
        q_ref[pmodel.joints[pmodel.getJointId(name)].idx_q] = value
    reduced = pin.buildReducedModel(pmodel, [pmodel.getJointId(n) for n in locked], q_ref)
    assert worst_of_20_states(Pair(system, reduced)) < RTOL


def test_a_mimic_of_a_locked_joint_is_locked_where_the_mimic_puts_it(tmp_path):
    """j2 mimics j1 (q2 = 2 q1 + 0.5): locking j1 at 0.3 locks j2 at 1.1; link d (j3's
    child, the one body left) and j3's base are where Pinocchio's forward kinematics puts
    link d at (0.3, 1.1, 0)."""
    path = _urdf(tmp_path, BODY + _link("c") + _link("d")
                 + _joint("j1", "continuous", "a", "b")
                 + _joint("j2", "revolute", "b", "c", axis="0.2 1 0",
                          extra='<mimic joint="j1" multiplier="2" offset="0.5"/>'
                                '<limit lower="-2" upper="2" effort="1" velocity="1"/>')
                 + _joint("j3", "continuous", "c", "d"))
    model = mbd.from_urdf(path, lock={"j1": 0.3})
    system = model.build()
    assert list(system.joints) == ["j3"] and not system.constrained
    pmodel = pin.buildModelFromUrdf(str(path))
    pdata = pmodel.createData()
    q = np.zeros(pmodel.nq)
    q[pmodel.joints[pmodel.getJointId("j1")].idx_q:][:2] = np.cos(0.3), np.sin(0.3)
    q[pmodel.joints[pmodel.getJointId("j2")].idx_q] = 1.1
    q[pmodel.joints[pmodel.getJointId("j3")].idx_q:][:2] = 1.0, 0.0
    pin.framesForwardKinematics(pmodel, pdata, q)
    frame = pdata.oMf[pmodel.getFrameId("d")]
    for cs in (model.grounds[1], system.bodies["d"].body["d"]):
        assert cs.name in ("j3_base", "d")
        np.testing.assert_allclose(cs.position, frame.translation, atol=1e-14)
        np.testing.assert_allclose(cs.rotation, frame.rotation, atol=1e-14)


def test_bad_locks_are_named(tmp_path):
    path = _urdf(tmp_path, BODY + _link("c") + _joint("j1", "continuous", "a", "b")
                 + _joint("j2", "continuous", "b", "c"))
    with pytest.raises(mbd.ModelError, match=r"lock names \['j9'\], which are no revolute, "
                                             r"continuous or prismatic joints of the robot; "
                                             r"those are \['j1', 'j2'\]"):
        mbd.from_urdf(path, lock=["j9"])
    with pytest.raises(mbd.ModelError, match=r"lock\['j1'\] must be a number \(rad or m\), "
                                             "got 'up'"):
        mbd.from_urdf(path, lock={"j1": "up"})


def test_no_robot_and_nothing_moving(tmp_path):
    path = tmp_path / "empty.urdf"
    path.write_text('<?xml version="1.0"?>\n<robot></robot>\n')
    with pytest.raises(mbd.ModelError, match="<robot> has no name attribute and no <link>"):
        mbd.from_urdf(path)
    path = _urdf(tmp_path, _link("frame"))
    with pytest.raises(mbd.ModelError, match="URDF robot 'r' .*: no joint moves a link of it "
                                             "and its base is fixed.* floating=True"):
        mbd.from_urdf(path)
    assert mbd.from_urdf(path, floating=True).build().nv == 6


def test_a_link_of_mass_0_with_an_inertia_is_taken_as_the_file_says(tmp_path):
    """A URDF link whose <inertial> has mass 0 and an inertia (a pure rotor, as some
    exporters write a motor's rotor): build() refuses such a body made by hand (issue 45),
    but the file says it on purpose, as Pinocchio reads it: from_urdf makes it weightless,
    and M, b and the accelerations equal Pinocchio's."""
    rotor = _inertial(mass=0.0, com="0 0 0", rpy="0 0 0", inertia=(0.01, 0.01, 0.02, 0, 0, 0))
    path = _urdf(tmp_path, _link("base") + _link("arm") + _link("rotor", rotor)
                 + _joint("shoulder", "continuous", "base", "arm", axis="0 1 0")
                 + _joint("spin", "continuous", "arm", "rotor", axis="0 0 1"))
    system = mbd.from_urdf(path).build()
    body = system.bodies["rotor"]
    assert getattr(body, "body", body).weightless
    assert worst_of_20_states(Pair(system, pin.buildModelFromUrdf(str(path)))) < RTOL
