"""A URDF's ``<dynamics damping friction>`` and ``<limit>`` values against an independent
reference (issue 45: a path no test walked). The reference is Pinocchio: its own URDF parser
reads the damping, friction and limits (``model.damping``, ``model.friction``,
``model.lower/upperPositionLimit``), and its ``aba`` gives the accelerations under the joint
torques mbd documents for them (mbd.exchange.urdf):

- damping d: a Damper, tau = -d v;
- friction f: a JointStiction with f_static = f_kinetic = f: while the joint slips,
  tau = -f sign(v) (compared where every joint slips, |v| >= 0.5, so the reference is the
  full kinetic value), at rest anything up to f holds it;
- limits [lower, upper]: a Bistop end stop of stiffness k (mbd.exchange.urdf.STOP, N m/rad
  or N/m, exponent 1): a joint pushed into its upper limit by a torque T comes to rest
  pressed in by p with k p = T - g(q) + friction, |friction| <= f, g Pinocchio's gravity
  torques at the rest pose.
"""
import numpy as np
import pinocchio as pin
import pytest
from scipy.integrate import solve_ivp

import mbd
from forces import Actuator, Bistop, Damper, JointForce, JointStiction
from mbd.exchange.urdf import STOP
from mbd.run import evaluator
from mbd.run.evaluator import Evaluator

from .urdf_text import _joint, _link, _urdf

pytest.importorskip("yourdfpy")

#: joint -> (type, axis, lower, upper, damping, friction), m or rad, N m s/rad or N s/m, N m or N
JOINTS = {"j1": ("revolute", "0 0 1", -1.0, 1.0, 0.7, 0.3),
          "j2": ("revolute", "0 1 0", -0.5, 1.2, 0.4, 0.2),
          "j3": ("prismatic", "1 0 0", -0.05, 0.1, 2.0, 0.5)}
#: relative accuracy of two evaluations of the same formula in double precision, with the
#: factor the tree's sums of ~10 terms allow (test_urdf.py's RTOL)
RTOL = 1e-9


def robot(tmp_path):
    """A 3-link chain (two hinges and a slide, skew origins from urdf_text) with damping,
    friction and limits on every joint: the file's path."""
    links = _link("base") + _link("a") + _link("b") + _link("c")
    joints = ""
    for (name, (kind, axis, lower, upper, d, f)), (parent, child) in zip(
            JOINTS.items(), (("base", "a"), ("a", "b"), ("b", "c"))):
        joints += _joint(name, kind, parent, child, axis=axis,
                         extra=f'<limit lower="{lower}" upper="{upper}" effort="100" '
                               f'velocity="3"/><dynamics damping="{d}" friction="{f}"/>')
    return _urdf(tmp_path, links + joints)


class Reference:
    """Pinocchio's model of the file, by joint name: its parsed damping, friction and limits,
    its aba under -d v - f sign(v) (+ applied torques)."""

    def __init__(self, path, system):
        self.pm = pin.buildModelFromUrdf(str(path))
        self.pd = self.pm.createData()
        names = list(self.pm.names[1:])
        assert sorted(names) == sorted(JOINTS) and self.pm.nq == self.pm.nv == 3
        # mbd's coordinate of each of Pinocchio's (the same joints, maybe in another order)
        self.index = np.array([int(system.joints[n].q_index[0]) for n in names])
        self.names = names

    def parsed(self):
        """{joint: (lower, upper, damping, friction)} as Pinocchio's parser read the file."""
        pm = self.pm
        return {n: (pm.lowerPositionLimit[i], pm.upperPositionLimit[i], pm.damping[i],
                    pm.friction[i]) for i, n in enumerate(self.names)}

    def joint_torques(self, v, applied=0.0):
        """-d v - f sign(v) + applied, Pinocchio's order (v in it too)."""
        return -self.pm.damping * v - self.pm.friction * np.sign(v) + applied

    def aba(self, q_mbd, v_mbd, applied=0.0):
        """The accelerations (mbd's order) at mbd's (q, v)."""
        q, v = q_mbd[self.index], v_mbd[self.index]
        a = pin.aba(self.pm, self.pd, q, v, self.joint_torques(v, applied))
        out = np.empty(3)
        out[self.index] = a
        return out

    def gravity(self, q_mbd):
        """g(q) (mbd's order): the joint torques gravity asks for at rest, N m or N."""
        out = np.empty(3)
        out[self.index] = pin.computeGeneralizedGravity(self.pm, self.pd, q_mbd[self.index])
        return out


def elements(model):
    return {getattr(e, "name", None): e for e in model.elements}


def test_the_elements_carry_the_files_values(tmp_path):
    """Each joint gets a Damper of its damping, a JointStiction of its friction (static =
    kinetic) and a Bistop of its limits, the same numbers Pinocchio's parser reads."""
    path = robot(tmp_path)
    model = mbd.from_urdf(path)
    system = model.build()
    parsed = Reference(path, system).parsed()
    got = elements(model)
    for name, (_, _, lower, upper, d, f) in JOINTS.items():
        assert parsed[name] == (lower, upper, d, f)
        assert isinstance(got[f"{name}_damping"].law, Damper)
        assert got[f"{name}_damping"].law.d == d
        assert isinstance(got[f"{name}_friction"], JointStiction)
        law = got[f"{name}_friction"].law
        assert (law.f_static, law.f_kinetic, law.d) == (f, f, 0.0)
        stop = got[f"{name}_limit"].law
        assert isinstance(stop, Bistop) and (stop.x1, stop.x2) == (lower, upper)
        assert (stop.k, stop.e, stop.cmax, stop.d) == (STOP["k"], STOP["e"], STOP["cmax"],
                                                       STOP["d"])


def test_accelerations_equal_pinocchios_aba_with_damping_and_kinetic_friction(tmp_path):
    """At 20 random states inside the limits, every joint slipping (|v| in [0.5, 2]), the
    right-hand side a run integrates equals Pinocchio's aba under tau = -d v - f sign(v);
    with the friction term left out of the reference (or the damping) they differ by far
    more than the tolerance, so both terms are checked."""
    path = robot(tmp_path)
    system = mbd.from_urdf(path).build()
    ref = Reference(path, system)
    sd = Evaluator(system)
    nw = evaluator.work_size(system)
    rng = np.random.default_rng(45)
    lower = np.empty(3)
    upper = np.empty(3)
    for name, (_, _, lo, hi, _, _) in JOINTS.items():
        i = system.joints[name].q_index[0]
        lower[i], upper[i] = lo, hi
    worst = without_friction = without_damping = 0.0
    for _ in range(20):
        margin = 0.05 * (upper - lower)                 # inside: every stop open
        q = rng.uniform(lower + margin, upper - margin)
        v = rng.choice([-1.0, 1.0], 3) * rng.uniform(0.5, 2.0, 3)
        y = np.r_[q, v, np.zeros(nw)]
        sd.natural_mode(0.0, y)           # the stops open, the frictions slip
        dy, status = sd.derivative(0.0, y)
        assert status == 0
        a = dy[system.nq:system.nq + system.nv]
        a_ref = ref.aba(q, v)
        scale = np.abs(a_ref).max()
        worst = max(worst, np.abs(a - a_ref).max() / scale)
        # the reference without one of the terms: the comparison must see each
        qp, vp = q[ref.index], v[ref.index]
        a_nf = np.empty(3)
        a_nf[ref.index] = pin.aba(ref.pm, ref.pd, qp, vp, -ref.pm.damping * vp)
        a_nd = np.empty(3)
        a_nd[ref.index] = pin.aba(ref.pm, ref.pd, qp, vp, -ref.pm.friction * np.sign(vp))
        without_friction = max(without_friction, np.abs(a - a_nf).max() / scale)
        without_damping = max(without_damping, np.abs(a - a_nd).max() / scale)
    print(f"max relative difference from aba: {worst:.1e} (leaving out friction "
          f"{without_friction:.1e}, damping {without_damping:.1e})")
    assert worst < RTOL
    assert without_friction > 1e3 * RTOL and without_damping > 1e3 * RTOL


def test_a_run_while_every_joint_slips_follows_pinocchio(tmp_path):
    """50 ms from a state where every joint moves fast enough that none stops (checked on the
    reference): mbd's run (rtol 1e-11) and Pinocchio's aba under -d v - f sign(v)
    integrated by scipy's DOP853 (rtol 1e-11) agree to 1e-8, the integrators' tolerance
    times the ~1e3 growth of errors over such a run."""
    path = robot(tmp_path)
    model = mbd.from_urdf(path)
    got = elements(model)
    q0 = {"j1": 0.2, "j2": 0.3, "j3": 0.02}
    v0 = {"j1": 2.0, "j2": 1.5, "j3": -0.4}
    for name in JOINTS:
        got[name].q0, got[name].v0 = q0[name], v0[name]
    system = model.build()
    ref = Reference(path, system)
    res = system.simulate(0.05, output_step=0.005, rtol=1e-11, atol=1e-12)
    order = ref.names

    def rhs(t, y):
        q, v = y[:3], y[3:]
        return np.r_[v, pin.aba(ref.pm, ref.pd, q, v, ref.joint_torques(v))]

    y0 = np.r_[[q0[n] for n in order], [v0[n] for n in order]]
    sol = solve_ivp(rhs, (0.0, 0.05), y0, method="DOP853", rtol=1e-11, atol=1e-12,
                    t_eval=res.t)
    assert sol.success
    v_ref = sol.y[3:]
    assert np.all(np.abs(v_ref) > 0.05), "a joint stopped: the reference's sign(v) is unclear"
    for k, name in enumerate(order):
        q_mbd = res.joint(name).q
        assert np.all((q_mbd > JOINTS[name][2]) & (q_mbd < JOINTS[name][3])), name  # stops open
        np.testing.assert_allclose(q_mbd, sol.y[k], rtol=0, atol=1e-8, err_msg=name)
        np.testing.assert_allclose(res.joint(name).v, v_ref[k], rtol=0, atol=1e-7, err_msg=name)
    assert not any("friction" in e.element for e in res.events)       # none stuck


def test_joints_driven_into_their_limits_rest_there_pressed_in_by_torque_over_k(tmp_path):
    """A constant torque (force) T drives each joint towards its upper limit; after the
    damping has taken the motion out, each joint rests above its limit by p with k p within
    friction of T - g(q) (the stop's stiffness k, Pinocchio's gravity g at the rest pose):
    |k p - (T - g)| <= f (measured: 0.13, 0.20 and 0.50 of f = 0.3, 0.2, 0.5), p < 1 mrad."""
    path = robot(tmp_path)
    model = mbd.from_urdf(path)
    push = {"j1": 40.0, "j2": 60.0, "j3": 80.0}            # N m, N m, N
    for name, T in push.items():
        model.add(JointForce(f"{name}_push", elements(model)[name], Actuator(T)))
    system = model.build()
    ref = Reference(path, system)
    res = system.simulate(3.0, output_step=0.01)
    q_end = res.q[-1]
    g = ref.gravity(q_end)
    k = STOP["k"]
    assert np.abs(res.v[-1]).max() < 1e-6                  # at rest
    for name, (_, _, _, upper, _, f) in JOINTS.items():
        i = system.joints[name].q_index[0]
        p = q_end[i] - upper
        assert 0.0 < p < 1e-3, (name, p)                     # in the stop, by a little
        # friction may hold up to f (a joint that sticks as the friction saturates rests at
        # the band's edge); k times the run's rtol (1e-8 of a coordinate ~1) for round-off
        assert abs(k * p - (push[name] - g[i])) <= f + k * 1e-8, (name, k * p,
                                                                  push[name] - g[i])
        # the stop's own record says the same: it holds -k p
        np.testing.assert_allclose(res.force(f"{name}_limit").value[-1], -k * p, rtol=1e-9)
    assert all(res.force(f"{name}_limit").contacts() for name in JOINTS)
