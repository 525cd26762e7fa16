"""The seed 001 gearbox -- a motor, an ElastoBacklash, an ideal gear, a load -- against
solutions worked out here, independently of mbd:

1. d = 0, both flanks: the relative angle x = q_pinion - q_motor is a one-coordinate piecewise
   linear ODE; its event-by-event closed form (parabolas in the backlash, harmonic arcs in
   contact, the switch times from the quadratic and trigonometric equations) through several
   contacts on both flanks, with a motor torque, a load torque, an offset phi_rel0 and a
   start off the centre; the motor and load angles from x and the (linear) momentum balance.
2. The rigid gear's reflected inertia, T t^2 / (2 J_eff); the backlash gearbox with b = 0 tends
   to it as 1/c.
3. Gears in a closed loop: a motor geared to the crank of a planar four-bar, and a motor geared
   to the four-bar's loop-closing joint, against a one-coordinate Lagrange solution of the
   geared four-bar (complex-step derivatives of its closed-form position analysis).
4. d > 0: the relative angle against a plain integration of its one-coordinate equation, and the
   energy balance (kinetic + backlash energy + dissipated = work of the torques) closing.

Conventions: the backlash is a RotationalForce from a CS on the motor (A) to one on the pinion
(B) about their common z axis, so it reads x = q_pinion - q_motor, as the seed's flange_b -
flange_a with flange_a on the motor; the gear is ``GearConstraint(mesh, pinion_shaft,
load_shaft, ratio=R)``: q_load = R q_pinion, R = 0.2 a reduction of 5 (Modelica's IdealGear
ratio = 1/R = 5). The load's inertia reflected to the pinion is R^2 J_l.
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mbd
from forces import Actuator, ElastoBacklash, JointForce, RotationalForce
from joints import Revolute

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

JM, JP, JL = 0.02, 0.005, 1.5        # motor, pinion, load inertias about z, kg m^2
R = 0.2                              # q_load = R q_pinion
JE = JP + R ** 2 * JL                # pinion + load reflected to the pinion, kg m^2
MU = 1.0 / (1.0 / JM + 1.0 / JE)     # the relative angle's (reduced) inertia, kg m^2
RTOL, ATOL = 1e-10, 1e-12


def gearbox(c=2.0e3, d=0.0, b=0.02, phi_rel0=0.0, t_motor=0.0, t_load=0.0):
    """The gearbox as a System: motor and pinion on coaxial revolutes (z) at the origin, the
    load on its own revolute 0.3 m away, the backlash from motor to pinion, the gear from the
    pinion to the load, constant torques on the motor and on the load (N m)."""
    m = mbd.Model("gearbox")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    g_load = m.add_ground("load_bearing", at=(0.3, 0, 0))
    motor = m.add_body("motor", mass=1.0, cg=(0, 0, 0), inertia=np.diag([1, 1, JM]))
    pinion = m.add_body("pinion", mass=0.2, cg=(0, 0, 0.05), inertia=np.diag([1, 1, JP]),
                        cs={"axle": (0, 0, 0)})
    load = m.add_body("load", mass=3.0, cg=(0.3, 0, 0), inertia=np.diag([1, 1, JL]))
    shaft = m.add(Revolute("motor_shaft", g, motor["cg"], axis=(0, 0, 1)))
    pin = m.add(Revolute("pinion_shaft", g, pinion["axle"], axis=(0, 0, 1)))
    out = m.add(Revolute("load_shaft", g_load, load["cg"], axis=(0, 0, 1)))
    m.add(RotationalForce("backlash", motor["cg"], pinion["axle"],
                          ElastoBacklash(c=c, d=d, b=b, phi_rel0=phi_rel0), axis=(0, 0, 1)))
    m.add(mbd.GearConstraint("mesh", pin, out, ratio=R))
    if t_motor:
        m.add(JointForce("motor_torque", shaft, Actuator(t_motor)))
    if t_load:
        m.add(JointForce("load_torque", out, Actuator(t_load)))
    return m.build()


def start(q_m, q_p, v_m, v_p):
    """simulate()'s q0 and v0 (rad, rad/s) with the load on the gear."""
    return dict(q0={"motor_shaft": q_m, "pinion_shaft": q_p, "load_shaft": R * q_p},
                v0={"motor_shaft": v_m, "pinion_shaft": v_p, "load_shaft": R * v_p})


def acceleration_in_the_backlash(t_motor, t_load):
    """a0 = x'' with no backlash torque, rad/s^2: the pinion (with the load reflected) takes
    R T_l / J_e, the motor T_m / J_m."""
    return R * t_load / JE - t_motor / JM


def split(t, x, q_m0, q_p0, v_m0, v_p0, t_motor, t_load):
    """(q_motor, q_load) from x: the backlash's torques are internal and the gear does no
    work, so J_m q_m + J_e q_p = P(t), the initial momentum carried on by T_m + R T_l; with
    q_p - q_m = x."""
    P = (JM * q_m0 + JE * q_p0 + (JM * v_m0 + JE * v_p0) * t
         + 0.5 * (t_motor + R * t_load) * t ** 2)
    q_p = (P + JM * x) / (JM + JE)
    return q_p - x, R * q_p


# ------------------------------------------------------------- 1. the piecewise closed form

def smallest_positive_root(a, b, c):
    """The smallest tau > 0 with a tau^2 + b tau + c = 0 (c = 0: the root other than 0), or
    inf."""
    if c == 0.0:
        tau = -b / a if a != 0.0 else np.inf
        return tau if tau > 0.0 else np.inf
    if a == 0.0:
        tau = -c / b if b != 0.0 else np.inf
        return tau if tau > 0.0 else np.inf
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return np.inf
    q = -0.5 * (b + np.copysign(np.sqrt(disc), b))          # no cancellation
    roots = [r for r in (q / a, c / q) if r > 0.0]
    return min(roots, default=np.inf)


class Backlash:
    """The relative angle of the undamped gearbox, event by event (exact up to round-off).

    With y = x - edge (edge = phi_rel0 +- b/2 the flank in contact) and w^2 = c / mu::

        backlash:  x'' = a0                x = x0 + v0 tau + a0 tau^2 / 2
        contact:   y'' = -w^2 y + a0       y = s (1 - cos w tau) + (v0 / w) sin w tau,
                                           s = a0 / w^2, from y = 0 at the touch

    A flight ends at the first positive root of the quadratic x(tau) = either edge; a contact
    at the nonzero root of s (1 - cos w tau) + (v0 / w) sin w tau = 0, i.e.
    rho cos(w tau - phi) = -s with rho, phi the polar form of (-s, v0 / w). Without damping
    the pinion leaves at the speed it struck, reversed.
    """

    def __init__(self, x0, v0, a0, c, b, phi_rel0, t_end):
        self.a0, self.w = a0, np.sqrt(c / MU)
        self.edges = {+1: phi_rel0 + 0.5 * b, -1: phi_rel0 - 0.5 * b}
        assert self.edges[-1] < x0 < self.edges[+1]
        self.pieces = []        # (t_begin, t_end, side (0 in the backlash), x, v at t_begin)
        self.events = []        # (t, label) as the law names its switches
        t, x, v, side, came_from = 0.0, x0, v0, 0, None
        while t < t_end:
            if side == 0:
                hits = {}
                for k, edge in self.edges.items():
                    gap = 0.0 if k == came_from else x - edge
                    hits[k] = smallest_positive_root(0.5 * a0, v, gap)
                side = min(hits, key=hits.get)
                tau = hits[side]
                self.pieces.append((t, t + tau, 0, x, v))
                x, v = self.edges[side], v + a0 * tau
                word = "upper" if side > 0 else "lower"
                self.events.append((t + tau, f"{word} contact begins"))
            else:
                s, B = a0 / self.w ** 2, v / self.w
                rho, phi = np.hypot(s, B), np.arctan2(B, -s)
                alpha = np.arccos(-s / rho)
                # the two roots of w tau mod 2 pi; one of them is the touch itself (tau = 0)
                roots = np.mod([phi + alpha, phi - alpha], 2.0 * np.pi)
                wt = max(roots, key=lambda r: min(r, 2.0 * np.pi - r))
                tau = wt / self.w
                self.pieces.append((t, t + tau, side, x, v))
                x, v = self.edges[side], -v
                word = "upper" if side > 0 else "lower"
                self.events.append((t + tau, f"{word} contact ends"))
                came_from, side = side, 0
            t += tau

    def __call__(self, t):
        """x(t), rad, at the times t (s)."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        out = np.full(t.shape, np.nan)
        for begin, end, side, x, v in self.pieces:
            inside = (t >= begin) & (t <= end)
            tau = t[inside] - begin
            if side == 0:
                out[inside] = x + v * tau + 0.5 * self.a0 * tau ** 2
            else:
                s, w = self.a0 / self.w ** 2, self.w
                out[inside] = (self.edges[side] + s * (1.0 - np.cos(w * tau))
                               + v / w * np.sin(w * tau))
        return out


#: both flanks: a motor torque against the load's, the pinion thrown across the backlash
BOTH = dict(c=2.0e3, b=0.02, phi_rel0=0.005, t_motor=0.3, t_load=3.0)
BOTH_START = dict(q_m0=0.01, q_p0=0.018, v_m0=0.5, v_p0=2.5)     # x0 = 0.008, v_rel = 2 rad/s
BOTH_T = 0.15


@pytest.fixture(scope="module")
def both_flanks():
    st = BOTH_START
    result = gearbox(**BOTH).simulate(BOTH_T, output_step=1e-3, rtol=RTOL, atol=ATOL,
                                      **start(st["q_m0"], st["q_p0"], st["v_m0"], st["v_p0"]))
    a0 = acceleration_in_the_backlash(BOTH["t_motor"], BOTH["t_load"])
    exact = Backlash(st["q_p0"] - st["q_m0"], st["v_p0"] - st["v_m0"], a0, BOTH["c"],
                     BOTH["b"], BOTH["phi_rel0"], BOTH_T)
    return result, exact


def test_contacts_on_both_flanks_at_the_closed_form_times(both_flanks):
    """Every contact begin and end of the backlash, in order and on its flank, within 1e-8 s
    of the closed form (measured 2e-13 s), and nothing else: with d = 0 the clamps' switching
    functions are the contact torque itself, zero only where a contact begins or ends, so
    they are no branch changes of their own and the log holds the contacts alone."""
    result, exact = both_flanks
    expected = [(t, what) for t, what in exact.events if t <= BOTH_T]
    got = [(e.t, e.what) for e in result.events if e.element == "backlash"]
    labels = [w for _, w in expected]
    assert labels.count("upper contact begins") >= 3
    assert labels.count("lower contact begins") >= 3
    assert [w for _, w in got] == labels
    np.testing.assert_allclose([t for t, _ in got], [t for t, _ in expected], rtol=0, atol=1e-8)


def test_motor_and_load_angles_follow_the_closed_form(both_flanks):
    """q_motor and q_load from the closed-form x and the momentum balance, to 1e-8 rad
    (measured 3e-13); the gear holds q_load = R q_pinion to 1e-9 rad."""
    result, exact = both_flanks
    st = BOTH_START
    q_m, q_l = split(result.t, exact(result.t), st["q_m0"], st["q_p0"], st["v_m0"], st["v_p0"],
                     BOTH["t_motor"], BOTH["t_load"])
    np.testing.assert_allclose(result.joint("motor_shaft").q, q_m, rtol=0, atol=1e-8)
    np.testing.assert_allclose(result.joint("load_shaft").q, q_l, rtol=0, atol=1e-8)
    np.testing.assert_allclose(result.joint("load_shaft").q,
                               R * result.joint("pinion_shaft").q, rtol=0, atol=1e-9)


# ------------------------------------------------------ 2. the rigid gear, and b = 0 tending to it

def rigid_gear(t_motor):
    """No backlash: the motor (with the pinion's inertia) geared straight to the load."""
    m = mbd.Model("rigid_gear")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    g_load = m.add_ground("load_bearing", at=(0.3, 0, 0))
    motor = m.add_body("motor", mass=1.2, cg=(0, 0, 0), inertia=np.diag([1, 1, JM + JP]))
    load = m.add_body("load", mass=3.0, cg=(0.3, 0, 0), inertia=np.diag([1, 1, JL]))
    shaft = m.add(Revolute("motor_shaft", g, motor["cg"], axis=(0, 0, 1)))
    out = m.add(Revolute("load_shaft", g_load, load["cg"], axis=(0, 0, 1)))
    m.add(mbd.GearConstraint("mesh", shaft, out, ratio=R))
    m.add(JointForce("motor_torque", shaft, Actuator(t_motor)))
    return m.build()


def test_the_rigid_gear_turns_the_reflected_inertia():
    """J_eff = J_m + J_p + R^2 J_l: q_m = T t^2 / (2 J_eff), q_l = R q_m."""
    T = 2.0
    system = rigid_gear(T)
    assert system.dof == 1
    r = system.simulate(0.3, output_step=0.01, rtol=RTOL, atol=ATOL)
    q = 0.5 * T * r.t ** 2 / (JM + JP + R ** 2 * JL)
    np.testing.assert_allclose(r.joint("motor_shaft").q, q, rtol=0, atol=1e-10)
    np.testing.assert_allclose(r.joint("load_shaft").q, R * q, rtol=0, atol=1e-10)


def test_without_backlash_the_gearbox_tends_to_the_rigid_gear_as_one_over_c():
    """b = 0: the ElastoBacklash is a spring, x = (a0 mu / c)(1 - cos w t), and the motor lags
    the rigid gear by J_e x / (J_m + J_e): at most K / c with K = 2 |a0| mu J_e / (J_m + J_e).
    Checked for c = 1e3, 1e4, 1e5 N m/rad: c times the largest lag is K each time (to the 1%
    the output grid can miss the peak by)."""
    T, t_end = 2.0, 0.05                                   # >= one period at the softest c
    a0 = acceleration_in_the_backlash(T, 0.0)
    K = 2.0 * abs(a0) * MU * JE / (JM + JE)
    for c in (1e3, 1e4, 1e5):
        r = gearbox(c=c, b=0.0, t_motor=T).simulate(t_end, output_step=1e-4, rtol=RTOL,
                                                    atol=ATOL)
        rigid = 0.5 * T * r.t ** 2 / (JM + JP + R ** 2 * JL)
        lag = np.max(np.abs(r.joint("motor_shaft").q - rigid))
        assert c * lag == pytest.approx(K, rel=1e-2)


# ----------------------------------------------------------------- 3. gears in a closed loop

G = 9.81
#: a planar crank-rocker in the xy-plane, hinge axes +z, gravity -y: crank O2-A, coupler A-B,
#: rocker O4-B (0.1, 0.335, 0.25 m, ground 0.3 m: s + l <= p + q, the crank shortest)
O2, A0, B0, O4 = (np.array(p, dtype=float) for p in ((0, 0, 0), (0, 0.1, 0), (0.3, 0.25, 0),
                                                      (0.3, 0, 0)))
LINKS = {"crank": (O2, A0, 0.5), "coupler": (A0, B0, 1.0), "rocker": (O4, B0, 0.8)}  # kg
MOTOR_AT = np.array([-0.15, 0.0, 0.0])
T_FOURBAR = 0.3                       # N m on the motor
RATIO_LOOP = -0.5


def geared_fourbar(on_cut):
    """The four-bar with a motor (J_m) on its own revolute, geared to the crank's hinge
    (``on_cut`` False: q_crank = ratio q_motor) or to the loop-closing hinge between coupler
    and rocker (``on_cut`` True: q_pin_b = ratio q_motor); a torque on the motor."""
    m = mbd.Model("geared_fourbar")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, -G, 0)))
    g4 = m.add_ground("rocker_bearing", at=O4)
    gm = m.add_ground("motor_bearing", at=MOTOR_AT)
    body = {}
    for name, (p, q, mass) in LINKS.items():
        inertia = mass * np.sum((q - p) ** 2) / 12.0          # about the CG, any axis
        body[name] = m.add_body(name, mass, (p + q) / 2, inertia * np.eye(3),
                                cs={"p": p, "q": q})
    motor = m.add_body("motor", mass=1.0, cg=MOTOR_AT, inertia=np.diag([1, 1, JM]))
    z = (0, 0, 1)
    shaft = m.add(Revolute("motor_shaft", gm, motor["cg"], axis=z))
    crank = m.add(Revolute("crank_pivot", g, body["crank"]["p"], axis=z))
    m.add(Revolute("pin_a", body["crank"]["q"], body["coupler"]["p"], axis=z))
    m.add(Revolute("rocker_pivot", g4, body["rocker"]["p"], axis=z))
    pin_b = m.add(Revolute("pin_b", body["coupler"]["q"], body["rocker"]["q"], axis=z))
    m.add(mbd.GearConstraint("mesh", shaft, pin_b if on_cut else crank, ratio=RATIO_LOOP))
    m.add(JointForce("motor_torque", shaft, Actuator(T_FOURBAR)))
    return m.build()


def _perp(u):
    return np.array([-u[1], u[0]])


def wrap(angle):
    """An angle (rad) into [-pi, pi)."""
    return (angle + np.pi) % (2.0 * np.pi) - np.pi


class GearedFourBar:
    """The geared four-bar as one coordinate, the crank's rotation theta from the drawing.

    Position analysis in closed form: A = O2 + a e(pi/2 + theta), B the intersection of the
    circles |B - A| = b, |B - O4| = c on the drawing's side of A-O4. Velocities per unit
    theta: A' = perp(A - O2), B' = w4 perp(B - O4) = A' + w3 perp(B - A) (a 2 x 2 solve).
    The gear ties the motor: s = g(theta) / ratio, with g = theta (on the crank) or
    g = gamma = (rocker's rotation - coupler's rotation) (on the loop-closing hinge), so
    s' = g' theta' / ratio. Lagrange's equation with the generalized mass

        m(theta) = sum m_k |p_k'|^2 + I_k w_k^2 + J_m (g' / ratio)^2

    is m theta'' + m' theta'^2 / 2 = T_m g' / ratio - dV/dtheta; m' and g'' are complex-step
    derivatives (exact to round-off: the analysis uses only arithmetic and square roots).
    """

    def __init__(self, on_cut):
        self.on_cut = on_cut
        self.a = np.linalg.norm(A0 - O2)
        self.b = np.linalg.norm(B0 - A0)
        self.c = np.linalg.norm(B0 - O4)
        self.mass = np.array([LINKS[k][2] for k in ("crank", "coupler", "rocker")])
        self.inertia = self.mass * np.array([self.a, self.b, self.c]) ** 2 / 12.0
        self.phi0 = self._absolute(0.0)

    def points(self, theta):
        """(A, B) in the plane at crank angle theta (complex theta allowed)."""
        A = self.a * np.array([np.cos(np.pi / 2 + theta), np.sin(np.pi / 2 + theta)])
        d = O4[:2] - A
        r = np.sqrt(d @ d)
        u = d / r
        along = (self.b ** 2 - self.c ** 2 + r ** 2) / (2.0 * r)
        B = A + along * u + np.sqrt(self.b ** 2 - along ** 2) * _perp(u)
        return A, B

    def rates(self, theta):
        """(A', B', w3, w4) per unit theta."""
        A, B = self.points(theta)
        dA = _perp(A - O2[:2])
        p3, p4 = _perp(B - A), _perp(B - O4[:2])
        det = p4[0] * (-p3[1]) - (-p3[0]) * p4[1]       # [p4, -p3] [w4, w3] = A'
        w4 = (dA[0] * (-p3[1]) - (-p3[0]) * dA[1]) / det
        w3 = (p4[0] * dA[1] - dA[0] * p4[1]) / det
        return dA, w4 * p4, w3, w4

    def dg(self, theta):
        """g'(theta): what the gear's joint turns per unit crank turn."""
        _, _, w3, w4 = self.rates(theta)
        return w4 - w3 if self.on_cut else 1.0 + 0.0 * w3

    def mass_matrix(self, theta):
        dA, dB, w3, w4 = self.rates(theta)
        dp = (0.5 * dA, 0.5 * (dA + dB), 0.5 * dB)         # CG velocities per unit theta
        m = sum(mk * (v @ v) for mk, v in zip(self.mass, dp))
        m += self.inertia[0] + self.inertia[1] * w3 ** 2 + self.inertia[2] * w4 ** 2
        return m + JM * (self.dg(theta) / RATIO_LOOP) ** 2

    def rhs(self, t, y):
        theta, omega = y
        h = 1e-30
        m = self.mass_matrix(theta)
        dm = np.imag(self.mass_matrix(theta + 1j * h)) / h
        dA, dB, _, _ = self.rates(theta)
        dV = G * (self.mass[0] * 0.5 * dA[1] + self.mass[1] * 0.5 * (dA[1] + dB[1])
                  + self.mass[2] * 0.5 * dB[1])
        Q = T_FOURBAR * self.dg(theta) / RATIO_LOOP - dV
        return [omega, (Q - 0.5 * dm * omega ** 2) / m]

    def _absolute(self, theta):
        """The links' absolute angles (crank, coupler, rocker), rad (real theta)."""
        A, B = self.points(theta)
        return np.array([np.pi / 2 + theta, np.arctan2(*(B - A)[::-1]),
                         np.arctan2(*(B - O4[:2])[::-1])])

    def joints(self, theta, omega):
        """The joint coordinates at (theta, omega) and the gear's torque on its q_b (N m):
        the motor's equation J_m s'' = T_m - ratio lambda."""
        phi = self._absolute(theta) - self.phi0
        g = wrap(phi[2] - phi[1]) if self.on_cut else theta
        q = {"motor_shaft": g / RATIO_LOOP, "crank_pivot": theta, "pin_a": wrap(phi[1] - theta),
             "rocker_pivot": wrap(phi[2]), "pin_b": wrap(phi[2] - phi[1])}
        h = 1e-30
        ddg = np.imag(self.dg(theta + 1j * h)) / h
        alpha = self.rhs(0.0, [theta, omega])[1]
        s_dd = (self.dg(theta) * alpha + ddg * omega ** 2) / RATIO_LOOP
        return q, (T_FOURBAR - JM * s_dd) / RATIO_LOOP


@pytest.mark.parametrize("on_cut", [False, True], ids=["gear_on_the_crank", "gear_on_the_cut"])
def test_a_gear_in_a_closed_loop(on_cut):
    """dof = 4 tree coordinates - 2 independent closure rows (a planar loop: three of the cut
    revolute's five rows are redundant) - 1 gear row = 1; the motion, q_b = ratio q_a and the
    gear's torque against the one-coordinate solution; an ideal gear does no work and the
    energy balance closes."""
    system = geared_fourbar(on_cut)
    assert system.cut_joints == ["pin_b"]
    assert system.dof == 1
    t_end = 1.0
    r = system.simulate(t_end, output_step=0.01, rtol=RTOL, atol=ATOL)
    ref_model = GearedFourBar(on_cut)
    ref = solve_ivp(ref_model.rhs, (0.0, t_end), [0.0, 0.0], method="DOP853", rtol=1e-12,
                    atol=1e-13, dense_output=True)
    theta, omega = ref.sol(r.t)
    assert np.ptp(theta) > 1.0                    # the crank really turns
    lam = np.empty_like(r.t)
    for name in ("motor_shaft", "crank_pivot", "pin_a", "rocker_pivot", "pin_b"):
        expected = np.empty_like(r.t)
        for k, (th, om) in enumerate(zip(theta, omega)):
            q, lam[k] = ref_model.joints(th, om)
            expected[k] = q[name]
        np.testing.assert_allclose(wrap(r.joint(name).q - expected), 0.0, atol=1e-8,
                                   err_msg=name)          # measured <= 3e-10 rad
    q_b = r.joint("pin_b" if on_cut else "crank_pivot").q
    np.testing.assert_allclose(q_b, RATIO_LOOP * r.joint("motor_shaft").q, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.reaction("mesh").value, lam, rtol=0, atol=1e-8)  # 8e-10
    balance = r.energy_balance()
    assert np.max(np.abs(balance.work["mesh"])) < 1e-12 * balance.scale
    assert balance.relative_residual < 10 * RTOL              # measured 2e-11, 1.5e-10


# --------------------------------------------------------------------- 4. damping, energy

def backlash_torque(x, v, c, d, b, phi_rel0):
    """(tau, tau_c) of SPEC 3.2's ElastoBacklash (b > 0), N m; the torque on the follower
    (the pinion) is -tau."""
    phid = x - phi_rel0
    if phid > 0.5 * b:
        tc = c * (phid - 0.5 * b)
        return (0.0 if tc + d * v <= 0.0 else tc + min(tc, d * v)), tc
    if phid < -0.5 * b:
        tc = c * (phid + 0.5 * b)
        return (0.0 if tc + d * v >= 0.0 else tc + max(tc, d * v)), tc
    return 0.0, 0.0


DAMPED = dict(BOTH, d=1.0)


def test_damping_against_the_one_coordinate_equation_and_the_energy_balance():
    """d > 0: x'' = a0 - tau(x, x') / mu still holds (the momentum balance is untouched by the
    internal torque), integrated by scipy with the damper's dissipation rate (tau - tau_c) x'
    (the spring's power tau_c x' is stored, the rest is lost). Against it: the contacts, the
    motor and load angles, the dissipated energy; and kinetic + stored + dissipated = the
    torques' work, each term computed here from the angles and rates."""
    st, p = BOTH_START, DAMPED
    t_end = BOTH_T
    result = gearbox(**p).simulate(t_end, output_step=1e-3, rtol=RTOL, atol=ATOL,
                                   **start(st["q_m0"], st["q_p0"], st["v_m0"], st["v_p0"]))
    a0 = acceleration_in_the_backlash(p["t_motor"], p["t_load"])
    law = (p["c"], p["d"], p["b"], p["phi_rel0"])

    def rhs(t, y):
        tau, tc = backlash_torque(y[0], y[1], *law)
        return [y[1], a0 - tau / MU, (tau - tc) * y[1]]

    edges = [lambda t, y, e=e: y[0] - p["phi_rel0"] - e for e in (0.5 * p["b"], -0.5 * p["b"])]
    ref = solve_ivp(rhs, (0.0, t_end), [st["q_p0"] - st["q_m0"], st["v_p0"] - st["v_m0"], 0.0],
                    method="DOP853", rtol=1e-12, atol=1e-14, dense_output=True, events=edges)
    crossings = np.sort(np.concatenate(ref.t_events))
    contacts = [e.t for e in result.events if e.element == "backlash"
                and e.what.endswith(("contact begins", "contact ends"))]
    assert len(contacts) == len(crossings) >= 8
    np.testing.assert_allclose(contacts, crossings, rtol=0, atol=1e-8)
    labels = {e.what for e in result.events if e.element == "backlash"}
    assert "contact torque would pull: zero" in labels        # the clamp is exercised

    x, w, lost = ref.sol(result.t)
    q_m, q_l = split(result.t, x, st["q_m0"], st["q_p0"], st["v_m0"], st["v_p0"],
                     p["t_motor"], p["t_load"])
    np.testing.assert_allclose(result.joint("motor_shaft").q, q_m, rtol=0, atol=1e-8)
    np.testing.assert_allclose(result.joint("load_shaft").q, q_l, rtol=0, atol=1e-8)

    balance = result.energy_balance()
    # the damper takes most of the relative motion's kinetic energy, mu v_rel^2 / 2
    assert lost[-1] > 0.5 * 0.5 * MU * (st["v_p0"] - st["v_m0"]) ** 2
    np.testing.assert_allclose(balance.dissipated["backlash"], lost, rtol=0,
                               atol=1e-8 * balance.scale)
    # each term from the angles and rates: every body turns about an axis through its CG
    wm, wp, wl = (result.joint(n).v for n in ("motor_shaft", "pinion_shaft", "load_shaft"))
    kinetic = 0.5 * (JM * wm ** 2 + JP * wp ** 2 + JL * wl ** 2)
    over = np.maximum(np.abs(result.joint("pinion_shaft").q - result.joint("motor_shaft").q
                             - p["phi_rel0"]) - 0.5 * p["b"], 0.0)
    stored = 0.5 * p["c"] * over ** 2
    qm, ql = result.joint("motor_shaft").q, result.joint("load_shaft").q
    work = p["t_motor"] * (qm - qm[0]) + p["t_load"] * (ql - ql[0])
    gap = (kinetic - kinetic[0]) + (stored - stored[0]) + lost - work
    assert np.max(np.abs(gap)) < 10 * RTOL * balance.scale      # measured 1.3e-11 of scale
    assert balance.relative_residual < 10 * RTOL                # measured 1e-11
