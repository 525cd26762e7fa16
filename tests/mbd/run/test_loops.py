"""Closed kinematic loops (issue 4) against answers worked out here independently of mbd.

* A planar four-bar (a Grashof crank-rocker) of four revolute joints in 3-D under gravity:
  its crank angle equals a one-coordinate Lagrange solution written from the closed-form
  position analysis; the six closure equations of the planar loop have rank 3 (mobility 1);
  residuals stay at round-off and energy is conserved. Every ``solve_ivp`` method runs it.
* A slider-crank driven at constant crank speed: the slider follows the closed-form offset
  slider-crank formula.
* A spatial RSUR four-bar (skew axes, spherical and universal joints in the loop) assembled
  from a crank target far from the drawing: the crank meets it, the rocker takes the
  closed-form angle of the drawing's assembly branch; energy is conserved.
* Mechanisms that cannot be assembled say which joints and which loop.
* A backlash on the cut joint: its contact events and the motion match the one-coordinate
  solution with the backlash potential; energy (with the spring's) is conserved.
"""
from functools import lru_cache

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq, minimize_scalar

import mbd
from forces import ElastoBacklash, JointForce, Spring
from joints import Prismatic, Revolute, Spherical, Universal
from mbd.compiled import assembly
from mbd.run.evaluator import Evaluator

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

G = 9.81

# ----------------------------------------------------------------------------- four-bar

#: The planar four-bar in the xz-plane, all hinge axes +y: ground pivots A and D, crank A-B,
#: coupler B-C, rocker C-D (lengths 1, 4.717, 3.5; ground 4: s + l <= p + q with the crank
#: shortest, a crank-rocker, which never meets a change point).
A4, B4, C4, D4 = (np.array(p, dtype=float) for p in ((0, 0, 0), (0, 0, 1), (4, 0, 3.5),
                                                      (4, 0, 0)))
#: (mass, moment of inertia about the CG and the y axis) of crank, coupler, rocker; every CG
#: is its link's midpoint.
LINK_PROPS = ((1.0, 1.0 / 12), (2.0, 2.0 * np.sum((C4 - B4) ** 2) / 12),
              (1.5, 1.5 * 3.5 ** 2 / 12))


def rod_inertia(mass, p, q, axial=1e-3):
    """Inertia about the CG of a slender rod from p to q (world axes)."""
    u = np.asarray(q, dtype=float) - p
    length = np.linalg.norm(u)
    u /= length
    return mass * length ** 2 / 12 * (np.eye(3) - np.outer(u, u)) + axial * np.outer(u, u)


def fourbar(crank=None, others=None, forces=()):
    """The four-bar model. ``crank`` and ``others`` are keyword arguments of the crank joint j1
    and of j2..j4 by name (q0, v0, exact); ``forces`` are callables(joints) -> elements."""
    m = mbd.Model("fourbar")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -G)))
    g2 = m.add_ground("g2", at=D4)
    points = (A4, B4, C4, D4)
    bodies = []
    for k, name in enumerate(("crank", "coupler", "rocker")):
        p, q = points[k], points[k + 1]
        mass = LINK_PROPS[k][0]
        bodies.append(m.add_body(name, mass, (p + q) / 2, rod_inertia(mass, p, q),
                                 cs={"a": p, "b": q}))
    crank_body, coupler, rocker = bodies
    others = others or {}
    y = (0, 1, 0)
    joints = {"j1": m.add(Revolute("j1", g, crank_body["a"], axis=y, **(crank or {}))),
              "j2": m.add(Revolute("j2", crank_body["b"], coupler["a"], axis=y,
                                   **others.get("j2", {}))),
              "j3": m.add(Revolute("j3", coupler["b"], rocker["a"], axis=y,
                                   **others.get("j3", {}))),
              "j4": m.add(Revolute("j4", rocker["b"], g2, axis=y, **others.get("j4", {})))}
    for make in forces:
        m.add(make(joints))
    return m.build()


def _e(angle):
    """Unit vector in the (x, z) plane at ``angle`` from +z towards +x: a rotation by +angle
    about +y carries +z onto it."""
    return np.array([np.sin(angle), np.cos(angle)])


def _de(angle):
    return np.array([np.cos(angle), -np.sin(angle)])


class FourBarReference:
    """The four-bar as a one-coordinate system in the crank angle theta (the rotation of the
    crank about +y from the drawing), from its closed-form position analysis.

    Links are vectors L_k e(alpha_k) in the (x, z) plane; alpha_k - alpha_k(drawing) is body k's
    rotation about +y. Closure a e(alpha_1) + L2 e(alpha_2) + L3 e(alpha_3) = D - A, solved
    for C as the intersection of two circles on the drawing's side of the diagonal B-D, gives
    alpha(theta); its derivatives follow from differentiating the closure. Generalized mass
    m(theta) = sum m_k |dp_k/dtheta|^2 + I_k (dalpha_k/dtheta)^2 and the potential V give
    theta'' = -(V'(theta) + m'(theta) theta'^2 / 2) / m(theta).

    ``backlash`` = (c, b): an elastic backlash (ElastoBacklash, d = 0, phi_rel0 = 0) on j3
    whose potential c/2 (|phi| - b/2)^2 outside the gap adds to V; ``crank_spring`` = k: a
    torsion spring k theta^2 / 2 on the crank.
    """

    def __init__(self, backlash=None, crank_spring=0.0):
        self.A, self.D = A4[[0, 2]], D4[[0, 2]]
        B, C = B4[[0, 2]], C4[[0, 2]]
        self.L = np.array([np.linalg.norm(B - self.A), np.linalg.norm(C - B),
                           np.linalg.norm(self.D - C)])
        self.alpha0 = np.array([self._angle(B - self.A), self._angle(C - B),
                                self._angle(self.D - C)])
        self.mass = np.array([p[0] for p in LINK_PROPS])
        self.inertia = np.array([p[1] for p in LINK_PROPS])
        self.backlash = backlash
        self.crank_spring = crank_spring

    @staticmethod
    def _angle(u):
        return np.arctan2(u[0], u[1])

    def angles(self, theta):
        """alpha (3,) at crank angle theta."""
        a, L2, L3 = self.L
        B = self.A + a * _e(self.alpha0[0] + theta)
        d = self.D - B
        r = np.linalg.norm(d)
        u = d / r
        n = np.array([-u[1], u[0]])     # C lies on this side of B-D in the drawing
        along = (L2 ** 2 - L3 ** 2 + r ** 2) / (2 * r)
        C = B + along * u + np.sqrt(L2 ** 2 - along ** 2) * n
        return np.array([self.alpha0[0] + theta, self._angle(C - B), self._angle(self.D - C)])

    def rates(self, alpha):
        """(dalpha/dtheta, d2alpha/dtheta2) from the differentiated closure."""
        a, L2, L3 = self.L
        M = np.column_stack([L2 * _de(alpha[1]), L3 * _de(alpha[2])])
        w = np.r_[1.0, np.linalg.solve(M, -a * _de(alpha[0]))]
        # d/dtheta of sum L_k de(alpha_k) w_k = 0, with de' = -e
        rhs = sum(self.L[k] * _e(alpha[k]) * w[k] ** 2 for k in range(3))
        return w, np.r_[0.0, np.linalg.solve(M, rhs)]

    def joint_angles(self, theta):
        """(j1, j2, j3, j4): relative rotations, follower about +y relative to base."""
        phi = self.angles(theta) - self.alpha0
        rel = np.array([phi[0], phi[1] - phi[0], phi[2] - phi[1], -phi[2]])
        rel[1:] = (rel[1:] + np.pi) % (2 * np.pi) - np.pi
        return rel

    def cg_positions(self, theta):
        """CG positions (3, 2) in (x, z)."""
        alpha = self.angles(theta)
        start = np.array([self.A, self.A + self.L[0] * _e(alpha[0]),
                          self.D - self.L[2] * _e(alpha[2])])
        return start + 0.5 * self.L[:, None] * np.array([_e(x) for x in alpha])

    def terms(self, theta):
        """(m, dm/dtheta, dV/dtheta) at theta."""
        alpha = self.angles(theta)
        w, w2 = self.rates(alpha)
        dp, d2p = np.zeros((3, 2)), np.zeros((3, 2))
        tip, dtip = np.zeros(2), np.zeros(2)
        for k in range(3):   # p_k = (joint before link k) + L_k/2 e(alpha_k)
            first = _de(alpha[k]) * w[k]
            second = -_e(alpha[k]) * w[k] ** 2 + _de(alpha[k]) * w2[k]
            dp[k] = tip + 0.5 * self.L[k] * first
            d2p[k] = dtip + 0.5 * self.L[k] * second
            tip, dtip = tip + self.L[k] * first, dtip + self.L[k] * second
        m = np.sum(self.mass * np.sum(dp ** 2, axis=1)) + np.sum(self.inertia * w ** 2)
        dm = 2 * np.sum(self.mass * np.sum(dp * d2p, axis=1)) + 2 * np.sum(self.inertia * w * w2)
        dV = G * np.sum(self.mass * dp[:, 1])
        dV += self.crank_spring * theta
        if self.backlash is not None:
            c, b = self.backlash
            phi = self.joint_angles(theta)[2]
            over = np.sign(phi) * max(abs(phi) - b / 2, 0.0)
            dV += c * over * (w[2] - w[1])
        return m, dm, dV

    def rhs(self, t, y):
        m, dm, dV = self.terms(y[0])
        return [y[1], -(dV + 0.5 * dm * y[1] ** 2) / m]

    def solve(self, theta0, omega0, t_end, events=None):
        return solve_ivp(self.rhs, (0.0, t_end), [theta0, omega0], method="DOP853", rtol=1e-12,
                         atol=1e-12, dense_output=True, events=events)


@lru_cache(maxsize=None)
def reference_fourbar():
    """Crank from the drawing at 3 rad/s, 10 s."""
    return FourBarReference().solve(0.0, 3.0, 10.0)


@lru_cache(maxsize=None)
def fourbar_run(method="DOP853"):
    s = fourbar(crank=dict(q0=0.0, v0=3.0, exact=True))
    return s, s.simulate(10.0, output_step=0.01, rtol=1e-10, atol=1e-10, method=method)


def max_residuals(system, result):
    """(max |g|, max |G v - rates|) over the output rows."""
    res = np.array([Evaluator(system).residuals(t, q, v)
                    for t, q, v in zip(result.t, result.q, result.v)])
    return res.max(axis=0)


def energy_drift(result):
    """max |E(t) - E(0)| relative to the largest kinetic energy of the run."""
    e = result.energy()
    return np.abs(e - e[0]).max() / result.kinetic_energy().max()


def test_reference_fourbar_is_consistent():
    """The reference's own derivatives: dalpha/dtheta and m' by central differences."""
    ref = FourBarReference()
    h = 1e-5
    for theta in (0.3, 2.0, 4.5):
        w, w2 = ref.rates(ref.angles(theta))
        fd = (ref.angles(theta + h) - ref.angles(theta - h)) / (2 * h)
        np.testing.assert_allclose(w, fd, atol=1e-8)
        fd2 = (ref.rates(ref.angles(theta + h))[0] - ref.rates(ref.angles(theta - h))[0]) / (2 * h)
        np.testing.assert_allclose(w2, fd2, atol=1e-7)
        dm = (ref.terms(theta + h)[0] - ref.terms(theta - h)[0]) / (2 * h)
        assert abs(ref.terms(theta)[1] - dm) < 1e-7
    # the drawing is on the computed branch
    np.testing.assert_allclose(ref.angles(0.0), ref.alpha0, atol=1e-14)


def test_fourbar_mobility_and_redundancy():
    s = fourbar()
    assert s.dof == 1
    assert len(s.cut_joints) == 1 and s.nv == 4
    # the planar loop in 3-D: six closure rows, of which only three are independent
    G_rows = assembly.Rows(s, Evaluator(s).data)(0.0, np.zeros(s.nq),
                                                                np.zeros(s.nv))[0]
    assert G_rows.shape == (6, 4)
    assert np.linalg.matrix_rank(G_rows, tol=1e-9) == 3
    # motion in the xz-plane about y axes: the out-of-plane equations are the redundant ones
    assert sorted(s.redundant) == sorted(f"joint '{s.cut_joints[0]}': {row}" for row in (
        "rotation about world x", "rotation about world z", "translation along world y"))


@pytest.mark.parametrize("method", ["DOP853", "Radau"])     # both compiled loops
def test_fourbar_matches_the_one_coordinate_solution(method):
    s, r = fourbar_run(method)
    assert r.stats["stepper"] == "compiled"
    ref = reference_fourbar()
    theta = r.joint("j1").q
    assert r.t[-1] == 10.0 and theta[-1] > 20.0        # the crank turns round and round
    np.testing.assert_allclose(theta, ref.sol(r.t)[0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(r.joint("j1").v, ref.sol(r.t)[1], rtol=0, atol=1e-5)
    pos, vel = max_residuals(s, r)
    assert pos < 1e-9 and vel < 1e-8, (pos, vel)
    assert energy_drift(r) < 1e-7
    # every body where the closed-form position analysis puts it, at the engine's own theta
    fb = FourBarReference()
    for k, name in enumerate(("crank", "coupler", "rocker")):
        expected = np.array([fb.cg_positions(th)[k] for th in theta[::10]])
        p = r.body(name).position("cg")[::10]
        np.testing.assert_allclose(p[:, [0, 2]], expected, rtol=0, atol=1e-9)
        np.testing.assert_allclose(p[:, 1], 0.0, atol=1e-12)
    # the passive joints' angles, and their rates from the velocity analysis at t = 0
    rel = np.array([fb.joint_angles(th) for th in theta[::10]])
    for k, name in enumerate(("j2", "j3", "j4")):
        q = r.joint(name).q[::10]
        np.testing.assert_allclose((q - rel[:, k + 1] + np.pi) % (2 * np.pi) - np.pi, 0.0,
                                   atol=1e-9)
    w = fb.rates(fb.alpha0)[0] * 3.0
    expected_v = [w[1] - w[0], w[2] - w[1], -w[2]]
    np.testing.assert_allclose([r.joint(n).v[0] for n in ("j2", "j3", "j4")], expected_v,
                               atol=1e-12)


# ------------------------------------------------------------------ every solve_ivp method

@pytest.mark.parametrize("method", ["RK45", "DOP853", "Radau", "BDF", "LSODA"])
def test_fourbar_with_every_method(method):
    """rtol = atol = 1e-8 for 1 s. The bound: ten times the error the same method makes on the
    one-coordinate equation at the same tolerances (the loop formulation may differ in detail,
    not in order of magnitude), at least 1e-7 rad."""
    s, _ = fourbar_run()
    ref = reference_fourbar()
    tol = 1e-8
    r = s.simulate(1.0, output_step=0.01, rtol=tol, atol=tol, method=method)
    assert r.stats["method"] == method and r.t[-1] == 1.0
    own = solve_ivp(FourBarReference().rhs, (0.0, 1.0), [0.0, 3.0], method=method, rtol=tol,
                    atol=tol, dense_output=True)
    bound = max(10 * np.abs(own.sol(r.t)[0] - ref.sol(r.t)[0]).max(), 1e-7)
    err = np.abs(r.joint("j1").q - ref.sol(r.t)[0]).max()
    assert err < bound, (method, err, bound)
    pos, vel = max_residuals(s, r)
    assert pos < 1e-9 and vel < 1e-8, (pos, vel)


# ------------------------------------------------------- force elements in the loop, events

def test_backlash_on_the_cut_joint_and_spring_on_the_crank():
    """An elastic backlash (d = 0: conservative) on the cut joint j3 and a spring on the crank:
    the contact events happen where the one-coordinate solution crosses the gap edges, the
    crank angle follows it, and kinetic + gravity + spring energy is conserved."""
    c, b, k = 200.0, 0.3, 0.5
    s = fourbar(crank=dict(q0=0.0, v0=3.0, exact=True),
                forces=[lambda j: JointForce("lash", j["j3"], ElastoBacklash(c=c, d=0.0, b=b)),
                        lambda j: JointForce("spring", j["j1"], Spring(c=k))])
    assert s.cut_joints == ["j3"]
    r = s.simulate(5.0, output_step=0.01, rtol=1e-10, atol=1e-10)

    fb = FourBarReference(backlash=(c, b), crank_spring=k)
    edges = [lambda t, y, side=side: fb.joint_angles(y[0])[2] - side * b / 2 for side in (1, -1)]
    ref = fb.solve(0.0, 3.0, 5.0, events=edges)
    crossings = np.sort(np.concatenate(ref.t_events))
    contact = [e.t for e in r.events if e.element == "lash" and "contact" in e.what
               and ("begins" in e.what or "ends" in e.what)]
    assert len(crossings) >= 6 and len(contact) == len(crossings)
    np.testing.assert_allclose(contact, crossings, rtol=0, atol=1e-8)
    # the backlash's coordinate is the cut joint's, at the gap edge at every contact event
    fv = r.force("lash")
    at = np.isin(r.t, contact)
    np.testing.assert_allclose(np.abs(fv.x[at]), b / 2, atol=1e-9)
    np.testing.assert_allclose(fv.x, r.joint("j3").q, atol=1e-12)
    np.testing.assert_allclose(r.joint("j1").q, ref.sol(r.t)[0], rtol=0, atol=1e-6)
    assert energy_drift(r) < 1e-7
    pos, vel = max_residuals(s, r)
    assert pos < 1e-9 and vel < 1e-8, (pos, vel)


# ----------------------------------------------------------------- driven slider-crank

#: crank radius, connecting-rod length, slider offset, crank speed, crank angle at t = 0
SC_R, SC_L, SC_E, SC_OMEGA, SC_THETA0 = 0.3, 1.0, 0.1, 5.0, 1.0


def slider_crank():
    """Crank about +z at the origin (drawn along +x), rod to a slider on a rail along +x at
    height e (drawn on the right), gravity -y in the plane of motion."""
    m = mbd.Model("slider_crank")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, -G, 0)))
    B = np.array([SC_R, 0.0, 0.0])
    P = np.array([SC_R + np.sqrt(SC_L ** 2 - SC_E ** 2), SC_E, 0.0])
    rail = m.add_ground("rail", at=P)
    crank = m.add_body("crank", 0.5, B / 2, rod_inertia(0.5, np.zeros(3), B),
                       cs={"o": (0, 0, 0), "b": B})
    rod = m.add_body("rod", 1.0, (B + P) / 2, rod_inertia(1.0, B, P), cs={"b": B, "p": P})
    slider = m.add_body("slider", 2.0, P, 0.01 * np.eye(3), cs={"p": P})
    z = (0, 0, 1)
    pin = m.add(Revolute("crank_pin", g, crank["o"], axis=z))
    m.add(Revolute("big_end", crank["b"], rod["b"], axis=z))
    m.add(Revolute("small_end", rod["p"], slider["p"], axis=z))
    m.add(Prismatic("slide", rail, slider["p"], axis=(1, 0, 0)))
    m.add(mbd.MotionDriver("spin", pin, position=lambda t: SC_THETA0 + SC_OMEGA * t,
                           velocity=lambda t: SC_OMEGA, acceleration=lambda t: 0.0))
    return m.build(), P


def test_driven_slider_crank_follows_the_closed_form():
    s, P = slider_crank()
    assert s.dof == 1 and len(s.cut_joints) == 1
    r = s.simulate(2.0, output_step=0.01, rtol=1e-10, atol=1e-10)
    theta = r.joint("crank_pin").q
    np.testing.assert_allclose(theta, SC_THETA0 + SC_OMEGA * r.t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.joint("crank_pin").v, SC_OMEGA, atol=1e-12)
    # slider pin at height e: (x - r cos th)^2 + (e - r sin th)^2 = l^2, the drawn (+) root
    root = np.sqrt(SC_L ** 2 - (SC_R * np.sin(theta) - SC_E) ** 2)
    x = SC_R * np.cos(theta) + root
    x_dot = SC_OMEGA * (-SC_R * np.sin(theta)
                        - (SC_R * np.sin(theta) - SC_E) * SC_R * np.cos(theta) / root)
    np.testing.assert_allclose(P[0] + r.joint("slide").q, x, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.body("slider").position("p")[:, 0], x, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.joint("slide").v, x_dot, rtol=0, atol=1e-8)
    pos, vel = max_residuals(s, r)
    assert pos < 1e-9 and vel < 1e-8, (pos, vel)
    # TODO(issue 4, reactions): driving torque vs virtual work of gravity and inertia


# ----------------------------------------------------------------- spatial RSUR four-bar

#: Crank A-B about +y, rocker D-C about +x (skew axes), coupler B-C with a spherical joint at
#: B and a universal joint at C whose cross axes are both normal to the coupler (so the
#: coupler cannot spin about itself: mobility 7 - 6 = 1). The crank turns fully round.
RS_A, RS_B = np.zeros(3), np.array([0.0, 0.0, 0.5])
RS_D = np.array([2.0, 1.8, 0.6])
RS_ROCKER = 2.4
RS_C = RS_D + [0.0, 0.0, RS_ROCKER]
RS_L = np.linalg.norm(RS_C - RS_B)


def rsur(q0=None, v0=None, exact=False):
    m = mbd.Model("rsur")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -G)))
    g2 = m.add_ground("g2", at=RS_D)
    crank = m.add_body("crank", 1.0, (RS_A + RS_B) / 2, rod_inertia(1.0, RS_A, RS_B),
                       cs={"a": RS_A, "b": RS_B})
    coupler = m.add_body("coupler", 2.0, (RS_B + RS_C) / 2, rod_inertia(2.0, RS_B, RS_C),
                         cs={"b": RS_B, "c": RS_C})
    rocker = m.add_body("rocker", 1.5, (RS_C + RS_D) / 2, rod_inertia(1.5, RS_C, RS_D),
                        cs={"c": RS_C, "d": RS_D})
    u = (RS_C - RS_B) / RS_L
    a1 = np.cross(u, [1.0, 0.0, 0.0])
    a1 /= np.linalg.norm(a1)
    m.add(Revolute("crank_pin", g, crank["a"], axis=(0, 1, 0), q0=q0, v0=v0, exact=exact))
    m.add(Spherical("ball", crank["b"], coupler["b"]))
    m.add(Universal("cross", coupler["c"], rocker["c"], axes=(a1, np.cross(u, a1))))
    m.add(Revolute("rocker_pin", g2, rocker["d"], axis=(1, 0, 0)))
    return m.build()


def rsur_rocker_angle(theta_end, steps=400):
    """The rocker angle psi at crank angle theta_end on the drawing's assembly branch: the
    root of |C(psi) - B(theta)| = L followed from (theta, psi) = (0, 0). B(theta) = R_y(theta)
    B0, C(psi) = D + R_x(psi) (0, 0, rocker)."""
    def gap(psi, theta):
        B = RS_B[2] * np.array([np.sin(theta), 0.0, np.cos(theta)])
        C = RS_D + RS_ROCKER * np.array([0.0, -np.sin(psi), np.cos(psi)])
        return np.linalg.norm(C - B) - RS_L

    psi = 0.0
    for theta in np.linspace(0.0, theta_end, steps + 1)[1:]:
        psi = brentq(gap, psi - 0.1, psi + 0.1, args=(theta,), xtol=1e-15)
    return psi


@pytest.mark.parametrize("exact", [False, True])
def test_spatial_fourbar_assembles_far_from_the_drawing(exact):
    """Crank target 2 rad away from the drawing, rocker free: the crank meets its target (an
    approximate one too, since it can be met) and the rocker sits where the closed form puts
    it on the drawing's branch."""
    s = rsur(q0=2.0, v0=1.0, exact=exact)
    assert s.dof == 1 and s.nv == 7 and len(s.cut_joints) == 1
    r = s.simulate(0.01, output_step=0.01, rtol=1e-10, atol=1e-10)
    assert abs(r.joint("crank_pin").q[0] - 2.0) < 1e-12
    assert abs(r.joint("crank_pin").v[0] - 1.0) < 1e-12
    assert abs(r.joint("rocker_pin").q[0] - rsur_rocker_angle(2.0)) < 1e-9
    pos, vel = Evaluator(s).residuals(0.0, r.q[0], r.v[0])
    assert pos < 1e-10 and vel < 1e-12, (pos, vel)


def test_spatial_fourbar_conserves_energy():
    s = rsur(q0=2.0, v0=1.0)
    r = s.simulate(3.0, output_step=0.01, rtol=1e-10, atol=1e-10)
    assert energy_drift(r) < 1e-7
    pos, vel = max_residuals(s, r)
    assert pos < 1e-9 and vel < 1e-8, (pos, vel)
    # the loop closes in the bodies' poses: crank tip to rocker tip is the coupler's length,
    # and the rocker's tip stays on its circle about the x axis through D
    B, C = r.body("crank").position("b"), r.body("rocker").position("c")
    np.testing.assert_allclose(np.linalg.norm(C - B, axis=1), RS_L, rtol=0, atol=1e-9)
    np.testing.assert_allclose(C[:, 0], RS_D[0], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm((C - RS_D)[:, 1:], axis=1), RS_ROCKER, atol=1e-12)
    # and the rocker angle is the closed form's at the crank angles reached
    theta, psi = r.joint("crank_pin").q, r.joint("rocker_pin").q
    for k in range(0, len(r.t), 60):
        assert abs(psi[k] - rsur_rocker_angle(theta[k])) < 1e-9


# ---------------------------------------------------------------- assembly targets, failures

def rocker_range():
    """(min, max) of j4 over a crank turn, from the closed form."""
    fb = FourBarReference()
    j4 = lambda th: fb.joint_angles(th)[3]
    grid = np.linspace(0.0, 2 * np.pi, 361)
    k_min, k_max = np.argmin([j4(t) for t in grid]), np.argmax([j4(t) for t in grid])
    low = minimize_scalar(j4, bracket=(grid[k_min - 1], grid[k_min], grid[k_min + 1]), tol=1e-12)
    high = minimize_scalar(lambda t: -j4(t), bracket=(grid[k_max - 1], grid[k_max],
                                                      grid[k_max + 1]), tol=1e-12)
    return low.fun, -high.fun


def test_targets_beyond_reach_end_at_the_limit_positions():
    """An approximate rocker target out of reach (crank free): the rocker stops at its limit,
    the nearest closed configuration; a reachable exact one is met with a matching crank."""
    low, high = rocker_range()
    assert low < -0.1 and high > 0.5
    for target, limit in ((1.0, high), (-1.0, low)):
        s = fourbar(others={"j4": dict(q0=target)})
        r = s.simulate(0.01, output_step=0.01)
        assert abs(r.joint("j4").q[0] - limit) < 1e-7, target
        assert Evaluator(s).residuals(0.0, r.q[0], r.v[0])[0] < 1e-10
    s = fourbar(others={"j4": dict(q0=0.3, exact=True)})
    r = s.simulate(0.01, output_step=0.01)
    assert abs(r.joint("j4").q[0] - 0.3) < 1e-9
    np.testing.assert_allclose(FourBarReference().joint_angles(r.joint("j1").q[0]),
                               [r.joint(n).q[0] for n in ("j1", "j2", "j3", "j4")], atol=1e-9)


def _assembly_error(system):
    with pytest.raises(mbd.SimulationError) as err:
        system.simulate(0.01, output_step=0.01)
    return str(err.value)


def test_impossible_exact_target_names_the_loop():
    low, high = rocker_range()
    message = _assembly_error(fourbar(crank=dict(q0=0.0),
                                      others={"j4": dict(q0=high + 0.2, exact=True)}))
    assert "assembly failed" in message and "'j4'" in message
    assert all(f"'{j}'" in message for j in ("j1", "j2", "j3")), message


def test_conflicting_exact_targets_name_the_joints():
    # j2 at crank 1.0 rad is fixed by the loop; 0.0 is not it
    assert abs(FourBarReference().joint_angles(1.0)[1]) > 0.1
    message = _assembly_error(fourbar(crank=dict(q0=1.0, exact=True),
                                      others={"j2": dict(q0=0.0, exact=True)}))
    assert "'j1'" in message and "'j2'" in message and "'j3'" in message, message
    # velocities too: j3's rate is fixed by the crank's
    message = _assembly_error(fourbar(crank=dict(q0=0.0, v0=3.0, exact=True),
                                      others={"j3": dict(v0=0.0, exact=True)}))
    assert "v0" in message and "'j1'" in message and "'j3'" in message, message


def test_a_parallelogram_passes_its_change_points_on_its_branch():
    """A parallelogram four-bar turning over passes change points (all links collinear, crank
    horizontal), where the closure equations lose rank for an instant: it passes every one on
    the parallelogram branch (j4 = -j1 throughout), never the folded one, with its energy
    kept."""
    m = mbd.Model("parallelogram")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    g2 = m.add_ground("g2", at=(2.0, 0.0, 0.0))
    crank = m.add_body("crank", 1.0, (0, 0, 0.5), np.diag([1 / 12, 1 / 12, 1e-3]),
                       cs={"a": (0, 0, 0), "b": (0, 0, 1)})
    coupler = m.add_body("coupler", 1.0, (1, 0, 1), np.diag([1e-3, 1 / 3, 1 / 3]),
                         cs={"a": (0, 0, 1), "b": (2, 0, 1)})
    rocker = m.add_body("rocker", 1.0, (2, 0, 0.5), np.diag([1 / 12, 1 / 12, 1e-3]),
                        cs={"a": (2, 0, 1), "b": (2, 0, 0)})
    m.add(Revolute("j1", g, crank["a"], axis=(0, 1, 0), v0=1.0))
    m.add(Revolute("j2", crank["b"], coupler["a"], axis=(0, 1, 0)))
    m.add(Revolute("j3", coupler["b"], rocker["a"], axis=(0, 1, 0)))
    m.add(Revolute("j4", rocker["b"], g2, axis=(0, 1, 0)))
    result = m.build().simulate(5.0, output_step=0.01, rtol=1e-10, atol=1e-10)
    assert result.t[-1] == 5.0
    crank_angle = result.joint("j1").q
    assert crank_angle.max() > 2 * np.pi        # it turned over, past 4 change points
    np.testing.assert_allclose(result.joint("j4").q, -crank_angle, rtol=0, atol=1e-8)
    assert energy_drift(result) < 1e-7


_ALLOCATIONS = """
import numpy as np
from numba import njit
from numba.core.runtime import rtsys
from mbd.compiled.jit import native
from mbd.run.evaluator import Evaluator
from tests.mbd.run.test_loops import fourbar


@njit
def repeat(rhs, y, dy, data, n):
    # the integrator's own call: through the right-hand side's address
    for _ in range(n):
        native.call4(rhs, 0.0, y, dy, data)


system = fourbar(crank=dict(q0=0.3, v0=2.0))
sd = Evaluator(system)
state = system.initial_state()
y = np.concatenate([state.q, state.v])
dy = np.empty_like(y)
rhs = sd.addresses()[0]
repeat(rhs, y, dy, sd.data, 1)                    # compile, load, first call
counts = []
for n in (1, 101):            # a call from Python allocates for its arguments: take the difference
    before = rtsys.get_allocation_stats()
    repeat(rhs, y, dy, sd.data, n)
    after = rtsys.get_allocation_stats()
    counts.append((after.alloc - before.alloc, after.free - before.free))
print(counts[1][0] - counts[0][0], counts[1][1] - counts[0][1], int(np.isfinite(dy).all()))
"""


def test_the_loop_right_hand_side_allocates_nothing():
    """100 evaluations of a closed loop's compiled right-hand side, called as the compiled
    integrator calls it, make no heap allocation (numba's runtime counts them with
    NUMBA_NRT_STATS=1, set in a fresh interpreter); and the derivative is finite."""
    import os
    import pathlib
    import subprocess
    import sys
    root = pathlib.Path(__file__).resolve().parents[3]
    env = dict(os.environ, NUMBA_NRT_STATS="1",
               PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", _ALLOCATIONS], env=env, cwd=root, check=True,
                         capture_output=True, text=True, timeout=600).stdout.split()
    assert out == ["0", "0", "1"], out
