"""Equilibrium, linearization and modes (issue 13) against references written here: closed
forms of textbook systems and, for the closed loop, an independent one-coordinate derivation
(closure solved numerically, energy and generalized mass by extrapolated differences).

Each model is built by a small helper at the top; every test states what it checks and its
reference. Tolerances are what the API promises: an equilibrium's residual <= tol = 1e-10
(N or N m), so a coordinate at rest is good to about tol / stiffness.
"""
import math

import numpy as np
import pytest
from scipy.interpolate import CubicSpline
from scipy.optimize import brentq, root

import mbd
from forces import (
    Actuator,
    Bistop,
    Damper,
    ElastoBacklash,
    ElastoGap,
    JointForce,
    LineForce,
    Spring,
    SpringDamper,
)
from joints import Prismatic, Revolute, SixDof, Spherical, Universal

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

G = 9.81
TOL = 1e-10          # the default equilibrium tolerance (largest generalized-force imbalance)
TINY = np.eye(3) * 1e-12     # a point mass's inertia
Y = (0.0, 1.0, 0.0)


# ------------------------------------------------------------------------------ models

def _model(name, gravity=(0.0, 0.0, -G)):
    m = mbd.Model(name)
    return m, m.add_ground("ground", environment=mbd.Environment(gravity=gravity))


def pendulum(mass=0.7, l=1.3, drawn="level", damper=None, spring=None, q0=None):
    """A point mass on a massless link of length l hinged about +y at the origin, drawn
    ``level`` (bob at +x), ``up`` (+z) or ``down`` (-z). A positive hinge angle turns +x
    towards -z and +z towards +x. ``damper``: a torsional Damper d on the hinge; ``spring``: a
    torsional Spring c, unstretched in the drawing."""
    m, g = _model("pendulum")
    cg = {"level": (l, 0, 0), "up": (0, 0, l), "down": (0, 0, -l)}[drawn]
    bob = m.add_body("bob", mass=mass, cg=cg, inertia=TINY, cs={"pivot": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, bob["pivot"], axis=Y, q0=q0))
    if damper is not None:
        m.add(JointForce("damper", hinge, Damper(d=damper)))
    if spring is not None:
        m.add(JointForce("spring", hinge, Spring(c=spring)))
    return m.build()


def double_pendulum(mass=0.9, l=0.8):
    """Two equal point masses on two massless links of length l, hanging along -z, hinges
    about +y."""
    m, g = _model("double_pendulum")
    a = m.add_body("a", mass=mass, cg=(0, 0, -l), inertia=TINY,
                   cs={"pivot": (0, 0, 0), "end": (0, 0, -l)})
    b = m.add_body("b", mass=mass, cg=(0, 0, -2 * l), inertia=TINY, cs={"pivot": (0, 0, -l)})
    m.add(Revolute("h1", g, a["pivot"], axis=Y, q0=0.4))
    m.add(Revolute("h2", a["end"], b["pivot"], axis=Y, q0=-0.3))
    return m.build()


def spring_chain(n=3, mass=0.4, k=50.0, a=1.0, x0=0.8):
    """n equal masses stacked along z between a floor (z = 0) and a ceiling (z = (n+1) a),
    n + 1 equal LineForce springs (k, unstretched length x0 < a: all in tension), gravity
    along the chain. Each mass slides on a Prismatic along z relative to the one below (the
    first relative to the floor): the coordinates are relative displacements."""
    m = mbd.Model("chain")
    rail = m.add_ground("rail", at=(0, 0, a),
                        environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    floor = m.add_ground("floor", at=(0, 0, 0))
    ceiling = m.add_ground("ceiling", at=(0, 0, (n + 1) * a))
    bodies = []
    for i in range(n):
        z = (i + 1) * a
        bodies.append(m.add_body(f"m{i + 1}", mass=mass, cg=(0, 0, z), inertia=np.eye(3) * 1e-3,
                                 cs={"o": (0, 0, z), "next": (0, 0, z + a)}))
    base = rail
    for i, body in enumerate(bodies):
        m.add(Prismatic(f"s{i + 1}", base, body["o"], axis=(0, 0, 1)))
        base = body["next"]
    ends = [floor] + [body["o"] for body in bodies] + [ceiling]
    for i in range(n + 1):
        m.add(LineForce(f"k{i + 1}", ends[i], ends[i + 1], Spring(c=k, x0=x0)))
    return m.build()


def oscillator(mass=2.5, c=900.0, d=7.0):
    """A block on a Prismatic along x (gravity -z, across the motion) on a SpringDamper."""
    m, g = _model("oscillator")
    blk = m.add_body("blk", mass=mass, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3,
                     cs={"o": (0, 0, 0)})
    slide = m.add(Prismatic("slide", g, blk["o"], axis=(1, 0, 0)))
    m.add(JointForce("sd", slide, SpringDamper(c=c, d=d)))
    return m.build()


def block_on(law, mass=2.0, q0=0.5, spring_name="stop"):
    """A block on a vertical Prismatic 'slide' (axis +z, against gravity) with ``law`` on the
    slide's coordinate (None: nothing holds it)."""
    m, g = _model("block")
    blk = m.add_body("block", mass=mass, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3,
                     cs={"o": (0, 0, 0)})
    slide = m.add(Prismatic("slide", g, blk["o"], axis=(0, 0, 1), q0=q0))
    if law is not None:
        m.add(JointForce(spring_name, slide, law))
    return m.build()


def wheel_in_backlash(c, d, b, phi_rel0, torque, q0):
    """A wheel on a Revolute about z (its CG on the axis, gravity along it: no gravity torque)
    held by an ElastoBacklash and pushed by a constant Actuator torque."""
    m, g = _model("wheel")
    w = m.add_body("wheel", mass=3.0, cg=(0, 0, 0), inertia=np.diag([0.2, 0.2, 0.4]),
                   cs={"o": (0, 0, 0)})
    axle = m.add(Revolute("axle", g, w["o"], axis=(0, 0, 1), q0=q0))
    m.add(JointForce("backlash", axle, ElastoBacklash(c=c, d=d, b=b, phi_rel0=phi_rel0)))
    m.add(JointForce("motor", axle, Actuator(torque)))
    return m.build()


# The four-bar: in the xz-plane, hinge axes +y, crank A-B, coupler B-C, rocker C-D with
# ground pivots A, D (a Grashof crank-rocker: shortest link the crank). Masses and inertias
# (I_yy about the CG) of each link, and CGs off the link lines.
FB_A, FB_B, FB_C, FB_D = (np.array(p, float) for p in ((0, 0, 0), (0, 0, 1), (4, 0, 3.5),
                                                         (4, 0, 0)))
FB_CG = (np.array([0.1, 0, 0.55]), np.array([2.1, 0, 2.05]), np.array([3.8, 0, 1.6]))
FB_MASS = (1.2, 2.3, 1.6)
FB_IYY = (0.11, 4.3, 1.7)
FB_K, FB_X0 = 40.0, 0.5   # torsional spring on the crank: N m/rad, unstretched at 0.5 rad


def fourbar(non_redundant=False, k=FB_K, x0=FB_X0):
    """The four-bar with the crank spring (unstretched at crank angle x0; the drawing itself is
    nearly a gravity equilibrium, an unstable one); all four joints Revolute (planar: redundant in
    3-D), or with a Spherical at the crank pin B and a Universal at C (axes +y and the
    coupler line x +y, both across the coupler so that it cannot spin): mobility 1 with no
    redundant constraint."""
    m, g = _model("fourbar")
    g2 = m.add_ground("pivot_d", at=FB_D)
    ends = ((FB_A, FB_B), (FB_B, FB_C), (FB_C, FB_D))
    bodies = []
    for name, (p, q), cg, mass, iyy in zip(("crank", "coupler", "rocker"), ends, FB_CG,
                                           FB_MASS, FB_IYY):
        bodies.append(m.add_body(name, mass, cg, np.diag([0.3 * iyy, iyy, 0.8 * iyy]),
                                 cs={"a": p, "b": q}))
    crank, coupler, rocker = bodies
    j1 = m.add(Revolute("j1", g, crank["a"], axis=Y))
    if non_redundant:
        u = (FB_C - FB_B) / np.linalg.norm(FB_C - FB_B)
        m.add(Spherical("j2", crank["b"], coupler["a"]))
        m.add(Universal("j3", coupler["b"], rocker["a"], axes=(Y, np.cross(u, Y))))
    else:
        m.add(Revolute("j2", crank["b"], coupler["a"], axis=Y))
        m.add(Revolute("j3", coupler["b"], rocker["a"], axis=Y))
    m.add(Revolute("j4", rocker["b"], g2, axis=Y))
    m.add(JointForce("crank_spring", j1, Spring(c=k, x0=x0)))
    return m.build()


# -------------------------------------------------- the four-bar's one-coordinate reference

def _rot(alpha, v):
    """The (x, z) components of v rotated by alpha about +y (+z turns towards +x)."""
    c, s = math.cos(alpha), math.sin(alpha)
    return np.array([c * v[0] + s * v[2], -s * v[0] + c * v[2]])


def _drot(alpha, v):
    c, s = math.cos(alpha), math.sin(alpha)
    return np.array([-s * v[0] + c * v[2], -c * v[0] - s * v[2]])


def fourbar_closure(theta):
    """(beta, gamma): the coupler's and the rocker's rotations about +y from the drawing at
    crank rotation theta, on the drawing's assembly branch. The loop closure
    R(theta)(B - A) + R(beta)(C - B) - R(gamma)(C - D) = D - A (in x, z) is solved by
    scipy.optimize.root, continued from the drawing (0, 0) in steps of at most 0.05 rad, then
    polished by Newton on the analytic 2 x 2 Jacobian."""
    AB, BC, DC = FB_B - FB_A, FB_C - FB_B, FB_C - FB_D
    target = (FB_D - FB_A)[[0, 2]]

    def residual(x, th):
        return _rot(th, AB) + _rot(x[0], BC) - _rot(x[1], DC) - target

    def jac(x, th):
        return np.column_stack([_drot(x[0], BC), -_drot(x[1], DC)])

    x = np.zeros(2)
    steps = max(1, math.ceil(abs(theta) / 0.05))
    for th in np.linspace(0.0, theta, steps + 1)[1:]:
        x = root(residual, x, args=(th,), jac=jac, method="hybr", tol=1e-12).x
    for _ in range(3):
        x = x - np.linalg.solve(jac(x, theta), residual(x, theta))
    assert np.abs(residual(x, theta)).max() < 1e-13, (theta, residual(x, theta))
    return x


def fourbar_cgs(theta):
    """(3, 2) CG positions (x, z) of crank, coupler, rocker, and the (3,) link rotations."""
    beta, gamma = fourbar_closure(theta)
    A, B, D = FB_A[[0, 2]], FB_A[[0, 2]] + _rot(theta, FB_B - FB_A), FB_D[[0, 2]]
    cgs = np.array([A + _rot(theta, FB_CG[0] - FB_A), B + _rot(beta, FB_CG[1] - FB_B),
                    D + _rot(gamma, FB_CG[2] - FB_D)])
    return cgs, np.array([theta, beta, gamma])


def fourbar_potential(theta, k=FB_K, x0=FB_X0):
    """V(theta) = k (theta - x0)^2 / 2 + g sum m_k z_k along the closed configuration, J."""
    cgs, _ = fourbar_cgs(theta)
    return 0.5 * k * (theta - x0) ** 2 + G * float(np.dot(FB_MASS, cgs[:, 1]))


def richardson(f, x, h, order, levels=6):
    """The first (order 1) or second (order 2) derivative of f at x by central differences
    with step h, h/2, ..., Richardson-extrapolated (the error series is in h^2)."""
    table = []
    for i in range(levels):
        hi = h / 2 ** i
        if order == 1:
            d = (f(x + hi) - f(x - hi)) / (2 * hi)
        else:
            d = (f(x + hi) - 2 * f(x) + f(x - hi)) / hi ** 2
        row = [d]
        for j in range(1, i + 1):
            row.append(row[j - 1] + (row[j - 1] - table[i - 1][j - 1]) / (4 ** j - 1))
        table.append(row)
    return table[-1][-1]


def fourbar_generalized_mass(theta):
    """m(theta) = sum_k m_k |dp_k/dtheta|^2 + I_k (dalpha_k/dtheta)^2: T = m theta'^2 / 2."""
    def configuration(t):
        cgs, alphas = fourbar_cgs(t)
        return np.concatenate([cgs.ravel(), alphas])     # x1, z1, x2, z2, x3, z3, alphas
    d = richardson(configuration, theta, 0.02, 1)
    dp, da = d[:6].reshape(3, 2), d[6:]
    return float(np.dot(FB_MASS, np.sum(dp ** 2, axis=1)) + np.dot(FB_IYY, da ** 2))


def fourbar_reference():
    """(theta*, omega^2, (beta, gamma)) of the four-bar at rest: dV/dtheta = 0 by brentq
    (bracketed in [0.5, 1.2] rad, where V'' > 0), omega^2 = V''(theta*) / m(theta*) (to about
    1e-11 relative: Richardson's table agrees with itself that far from h = 0.04 to 0.08)."""
    dV = lambda th: richardson(fourbar_potential, th, 0.02, 1)
    theta = brentq(dV, 0.5, 1.2, xtol=1e-14, rtol=1e-15)
    # second differences lose eps |V| / h^2 to round-off: from h = 0.08 down to 0.01 (four
    # levels) that is 1e-11, where six levels from 0.02 (down to 6e-4) lose 1e-8
    d2V = richardson(fourbar_potential, theta, 0.08, 2, levels=4)
    return theta, d2V / fourbar_generalized_mass(theta), fourbar_closure(theta)


_CACHE = {}


def cached(key, make):
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def _wrap(angle):
    """An angle in [-pi, pi)."""
    return (angle + np.pi) % (2 * np.pi) - np.pi


# ------------------------------------------------------------------------------- tests

def test_pendulum_drawn_level_rests_hanging_with_frequency_sqrt_g_over_l():
    """A point mass on a massless link, drawn horizontal: the equilibrium is hanging straight
    down (hinge angle pi/2 mod 2 pi), residual <= 1e-10, stable; the linearization about it
    has one mode, f = sqrt(g/l) / (2 pi) (reference: the simple pendulum's small-oscillation
    frequency; the 1e-12 inertia shifts it by 4e-13)."""
    l = 1.3
    s = pendulum(l=l, drawn="level")
    eq = mbd.equilibrium(s)
    assert eq.residual <= TOL
    assert eq.stable
    # the angle's error is residual / (m g l) at most: a few 1e-11 rad
    assert abs(_wrap(eq.coordinates()["hinge"] - np.pi / 2)) < 1e-9
    assert np.all(eq.state.v == 0)
    lin = mbd.linearize(s, eq.state)
    modes = lin.modes()
    assert len(modes) == 1
    assert modes[0].frequency == pytest.approx(np.sqrt(G / l) / (2 * np.pi), rel=1e-8)
    assert modes[0].stable


def test_double_pendulum_frequencies_are_g_over_l_times_2_minus_plus_sqrt2():
    """Two equal point masses on massless links of length l: omega^2 = (g/l)(2 -+ sqrt 2)
    (reference: the textbook normal modes, from M = m l^2 [[2, 1], [1, 1]],
    K = m g l [[2, 0], [0, 1]]). Equilibrium from a bent start first; both frequencies to
    1e-8 relative."""
    l = 0.8
    s = double_pendulum(l=l)
    eq = mbd.equilibrium(s)
    assert eq.residual <= TOL and eq.stable
    q = eq.coordinates()
    assert abs(_wrap(q["h1"])) < 1e-9 and abs(_wrap(q["h2"])) < 1e-9
    f = sorted(md.frequency for md in mbd.linearize(s, eq.state).modes())
    exact = [np.sqrt(G / l * (2 - np.sqrt(2))) / (2 * np.pi),
             np.sqrt(G / l * (2 + np.sqrt(2))) / (2 * np.pi)]
    assert len(f) == 2
    np.testing.assert_allclose(f, exact, rtol=1e-8)


def test_spring_mass_chain_frequencies_and_sag():
    """Three equal masses between two walls on four equal springs, along gravity, with
    relative (series Prismatic) coordinates: omega_j^2 = (k/m)(2 - 2 cos(j pi / (n+1))),
    j = 1..n (reference: the fixed-fixed lumped chain). The sag: the absolute displacements u
    solve k tridiag(-1, 2, -1) u = -m g (the pretension cancels), to residual / k."""
    n, mass, k = 3, 0.4, 50.0
    s = spring_chain(n=n, mass=mass, k=k)
    eq = mbd.equilibrium(s)
    assert eq.residual <= TOL and eq.stable
    rel = np.array([eq.coordinates()[f"s{i + 1}"] for i in range(n)])
    K = k * (2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1))
    u = np.linalg.solve(K, -mass * G * np.ones(n))
    np.testing.assert_allclose(np.cumsum(rel), u, rtol=0, atol=10 * TOL / k)
    f = sorted(md.frequency for md in mbd.linearize(s, eq.state).modes())
    j = np.arange(1, n + 1)
    exact = np.sqrt(k / mass * (2 - 2 * np.cos(j * np.pi / (n + 1)))) / (2 * np.pi)
    assert len(f) == n
    np.testing.assert_allclose(f, exact, rtol=1e-8)


def test_damped_oscillator_ratio_frequency_and_second_order_form():
    """A mass m on a SpringDamper (c, d): damping ratio d / (2 sqrt(c m)), undamped frequency
    sqrt(c/m) / (2 pi) (reference: m x'' + d x' + c x = 0), to 1e-8; and the second-order
    form M = m, K = c, Cd = d."""
    mass, c, d = 2.5, 900.0, 7.0
    s = oscillator(mass, c, d)
    lin = mbd.linearize(s, s.initial_state())
    (mode,) = lin.modes()
    assert mode.damping_ratio == pytest.approx(d / (2 * np.sqrt(c * mass)), rel=1e-8)
    assert mode.frequency == pytest.approx(np.sqrt(c / mass) / (2 * np.pi), rel=1e-8)
    lam = complex(-d / (2 * mass), np.sqrt(c / mass - (d / (2 * mass)) ** 2))
    assert abs(mode.eigenvalue - lam) <= 1e-8 * abs(lam)
    assert lin.M.shape == lin.K.shape == lin.Cd.shape == (1, 1)
    assert lin.M[0, 0] == pytest.approx(mass, rel=1e-8)
    assert lin.K[0, 0] == pytest.approx(c, rel=1e-8)
    assert lin.Cd[0, 0] == pytest.approx(d, rel=1e-8)
    np.testing.assert_allclose(lin.A, [[0, 1], [-c / mass, -d / mass]], rtol=1e-8, atol=1e-12)


def test_pendulum_on_a_torsional_spring_buckles_to_k_theta_equal_m_g_l_sin_theta():
    """A point mass drawn upright on a hinge with a torsional spring k < m g l unstretched
    upright: it rests at theta with k theta = m g l sin theta (brentq here), to 1e-9 rad, and
    oscillates there at omega^2 = (k - m g l cos theta) / (m l^2) (reference: V = k theta^2/2
    + m g l cos theta), to 1e-8 relative."""
    mass, l, k = 1.3, 0.9, 7.0
    assert k < mass * G * l
    s = pendulum(mass=mass, l=l, drawn="up", spring=k, q0=0.3)
    eq = mbd.equilibrium(s)
    assert eq.residual <= TOL and eq.stable
    theta = brentq(lambda th: k * th - mass * G * l * np.sin(th), 1e-3, np.pi, xtol=1e-15)
    # q0 = 0.3 leans the bob towards +x: gravity takes it further that way
    assert eq.coordinates()["hinge"] == pytest.approx(theta, abs=1e-9)
    (mode,) = mbd.linearize(s, eq.state).modes()
    omega2 = (k - mass * G * l * np.cos(theta)) / (mass * l ** 2)
    assert mode.frequency == pytest.approx(np.sqrt(omega2) / (2 * np.pi), rel=1e-8)


def test_inverted_pendulum_grows_at_sqrt_g_over_l():
    """A point mass drawn upright, no spring, linearized upright at rest: exactly one mode
    grows, at the rate sqrt(g/l) (reference: theta'' = (g/l) theta), to 1e-8. equilibrium()
    from exactly upright either reports that equilibrium as unstable or finds the stable
    hanging one (angle pi)."""
    l = 0.75
    s = pendulum(l=l, drawn="up")
    lin = mbd.linearize(s, s.initial_state())
    growing = [md for md in lin.modes() if not md.stable]
    assert len(growing) == 1
    assert growing[0].growth_rate == pytest.approx(np.sqrt(G / l), rel=1e-8)
    assert growing[0].kind == "growing"
    # the +-sqrt(g/l) pair has one frequency: the growing mode is listed first
    assert [md.kind for md in lin.modes()] == ["growing", "decaying"]
    eq = mbd.equilibrium(s)
    assert eq.residual <= TOL
    if eq.stable:
        assert abs(abs(_wrap(eq.coordinates()["hinge"])) - np.pi) < 1e-9
    else:
        assert abs(_wrap(eq.coordinates()["hinge"])) < 1e-9


def test_block_rests_in_contact_on_an_elastogap():
    """A block drawn 0.4 m above an ElastoGap (c, d, s_rel0, n = 1.5) under gravity: it must
    cross into contact and rest where c (s_rel0 - s)^n = m g (reference: the law's force at
    v = 0), to residual / local stiffness; eq.active reports the contact."""
    c, d, s0, n, mass = 2e4, 30.0, 0.1, 1.5, 2.0
    s = block_on(ElastoGap(c=c, d=d, s_rel0=s0, n=n), mass=mass, q0=0.5)
    eq = mbd.equilibrium(s)
    assert eq.residual <= TOL and eq.stable
    pen = (mass * G / c) ** (1 / n)
    stiffness = c * n * pen ** (n - 1)
    assert eq.coordinates()["slide"] == pytest.approx(s0 - pen, abs=2 * TOL / stiffness + 1e-15)
    assert eq.active["stop"] == {"contact": True}


def test_block_rests_against_the_lower_bistop():
    """A block in a vertical BISTOP slot (x1, x2, k, e), drawn mid-slot: it rests at the
    penetration (m g / k)^(1/e) into the lower stop (reference: k (x1 - x)^e = m g), with
    eq.active contact -1."""
    x1, x2, k, e, mass = 0.05, 1.0, 1e6, 2.2, 2.0
    s = block_on(Bistop(x1=x1, x2=x2, k=k, e=e, cmax=5.0, d=1e-3), mass=mass, q0=0.5)
    eq = mbd.equilibrium(s)
    assert eq.residual <= TOL and eq.stable
    pen = (mass * G / k) ** (1 / e)
    stiffness = k * e * pen ** (e - 1)
    assert eq.coordinates()["slide"] == pytest.approx(x1 - pen, abs=2 * TOL / stiffness + 1e-15)
    assert eq.active["stop"] == {"contact": -1}


def test_wheel_pushed_through_a_backlash_rests_on_the_upper_flank():
    """A wheel inside an ElastoBacklash (c, b, phi_rel0), drawn mid-play, under a constant
    Actuator torque T > 0: it crosses the play and rests where c (phi - phi_rel0 - b/2) = T
    (reference: the law in upper contact at v = 0), with eq.active contact +1 (upper)."""
    c, d, b, phi0, T = 400.0, 2.0, 0.3, 0.2, 12.0
    s = wheel_in_backlash(c, d, b, phi0, T, q0=phi0)
    eq = mbd.equilibrium(s)
    assert eq.residual <= TOL and eq.stable
    assert eq.coordinates()["axle"] == pytest.approx(phi0 + b / 2 + T / c, abs=2 * TOL / c)
    assert eq.active["backlash"] == {"contact": 1}
    # and pushed the other way, against the lower flank
    s = wheel_in_backlash(c, d, b, phi0, -T, q0=phi0)
    eq = mbd.equilibrium(s)
    assert eq.residual <= TOL
    assert eq.coordinates()["axle"] == pytest.approx(phi0 - b / 2 - T / c, abs=2 * TOL / c)
    assert eq.active["backlash"] == {"contact": -1}


def test_fourbar_with_crank_spring_against_a_one_coordinate_derivation():
    """A planar four-bar (four revolutes, redundant in 3-D) with a torsional spring on the
    crank, in gravity, drawn about 0.85 rad from where it rests. Reference, written here:
    the closure solved for the coupler and rocker rotations (scipy root), V(theta) =
    k (theta - x0)^2 / 2 + g sum m z along it, dV/dtheta = 0 by brentq, omega^2 =
    V''/m(theta) with m the generalized mass, all derivatives by Richardson-extrapolated
    central differences (checked against a simulation: closure, CG positions, kinetic and
    potential energy agree to 1e-10 over theta in [0, 1.58]). The crank angle to 1e-8 rad,
    the coupler and rocker joint angles too, the frequency to 1e-6 relative; A is
    (2 dof, 2 dof)."""
    s = fourbar()
    assert s.dof == 1 and len(s.redundant) > 0
    theta, omega2, (beta, gamma) = cached("fourbar_ref", fourbar_reference)
    eq = mbd.equilibrium(s)
    assert eq.residual <= TOL and eq.stable
    q = eq.coordinates()
    assert q["j1"] == pytest.approx(theta, abs=1e-8)
    expected = {"j2": beta - theta, "j3": gamma - beta, "j4": -gamma}
    for name, angle in expected.items():
        assert abs(_wrap(q[name] - angle)) < 1e-8, (name, q[name], angle)
    lin = mbd.linearize(s, eq.state)
    assert lin.A.shape == (2 * s.dof, 2 * s.dof)
    (mode,) = lin.modes()
    assert mode.frequency == pytest.approx(np.sqrt(omega2) / (2 * np.pi), rel=1e-6)


def test_redundant_and_non_redundant_fourbars_agree():
    """The same four-bar built with four revolutes (redundant: system.redundant non-empty)
    and with a Spherical at B and a Universal at C (no redundant constraint): the same
    mobility, crank angle at rest and frequency, to 1e-8 relative (reference: each other;
    the motion is planar either way)."""
    red, free = fourbar(), fourbar(non_redundant=True)
    assert red.dof == free.dof == 1
    assert len(red.redundant) > 0 and len(free.redundant) == 0
    eq_r, eq_f = mbd.equilibrium(red), mbd.equilibrium(free)
    assert eq_r.residual <= TOL and eq_f.residual <= TOL
    assert eq_f.coordinates()["j1"] == pytest.approx(eq_r.coordinates()["j1"], rel=1e-8)
    assert eq_f.coordinates()["j4"] == pytest.approx(eq_r.coordinates()["j4"], rel=1e-8)
    (m_r,) = mbd.linearize(red, eq_r.state).modes()
    (m_f,) = mbd.linearize(free, eq_f.state).modes()
    assert m_f.frequency == pytest.approx(m_r.frequency, rel=1e-8)


def test_linearization_error_estimate_bounds_the_actual_error():
    """lin.error, the Ridders error estimate of A's entries, bounds what A is actually off:
    the redundant and non-redundant four-bars have the same omega^2 = -A[1, 0] (one degree
    of freedom, no damping; coordinates in rad either way), so their difference must stay
    within (a safety factor 10 of) the two error estimates added, plus round-off. Reference:
    the two models against each other (and both within 1e-9 of the one-coordinate
    derivation, whose own finite differences limit it to a few 1e-10)."""
    lins = [mbd.equilibrium(fourbar(non_redundant=nr)).linear for nr in (False, True)]
    omega2 = [-lin.A[1, 0] for lin in lins]
    assert all(abs(lin.Cd[0, 0]) < 1e-9 for lin in lins)
    bound = 10 * (lins[0].error + lins[1].error) + 1e-12 * omega2[0]
    assert abs(omega2[1] - omega2[0]) <= bound, (omega2, [lin.error for lin in lins])
    _, ref, _ = cached("fourbar_ref", fourbar_reference)
    for w2 in omega2:
        assert w2 == pytest.approx(ref, rel=1e-9)


def test_simulated_small_motion_matches_the_damped_mode():
    """A lightly damped pendulum (torsional Damper on the hinge), released 1e-4 rad from its
    equilibrium at rest, simulated at rtol = atol = 1e-12 for about 5 periods: the zero
    crossings of the deviation (cubic-spline roots) are pi / omega_d apart and successive
    peaks shrink by exp(-sigma 2 pi / omega_d), with omega_d and sigma the mode's Im and -Re
    lambda, to 1e-4 relative (reference: the nonlinear simulation)."""
    mass, l, d = 1.0, 1.0, 0.125
    s = pendulum(mass=mass, l=l, drawn="down", damper=d)
    eq = mbd.equilibrium(s)
    (mode,) = eq.linear.modes()
    lam = mode.eigenvalue
    omega_d, sigma = lam.imag, -lam.real
    assert mode.damped_frequency == pytest.approx(omega_d / (2 * np.pi), rel=1e-12)
    theta0 = eq.coordinates()["hinge"]
    period = 2 * np.pi / omega_d
    r = s.simulate(5.3 * period, output_step=1e-3, q0={"hinge": theta0 + 1e-4},
                   v0={"hinge": 0.0}, rtol=1e-12, atol=1e-12)
    x = r.joint("hinge").q - theta0
    spline = CubicSpline(r.t, x)
    crossings = spline.roots(extrapolate=False)
    crossings = crossings[crossings > 1e-6]
    assert len(crossings) >= 8
    half = np.polyfit(np.arange(len(crossings)), crossings, 1)[0]
    measured_omega = np.pi / half
    peaks_t = spline.derivative().roots(extrapolate=False)
    peaks_t = peaks_t[(peaks_t > 1e-6) & (spline(peaks_t) > 0)]
    assert len(peaks_t) >= 4
    ratios = spline(peaks_t[1:]) / spline(peaks_t[:-1])
    measured_sigma = -np.log(ratios) / np.diff(peaks_t)
    assert measured_omega == pytest.approx(omega_d, rel=1e-4)
    assert np.mean(measured_sigma) == pytest.approx(sigma, rel=1e-4)
    assert np.ptp(measured_sigma) <= 1e-4 * sigma
    # and the references themselves: sigma = d / (2 m l^2), omega_d^2 = g/l - sigma^2
    assert sigma == pytest.approx(d / (2 * mass * l ** 2), rel=1e-8)
    assert omega_d == pytest.approx(np.sqrt(G / l - sigma ** 2), rel=1e-8)


def test_a_block_falling_freely_has_no_equilibrium_named_by_its_slide():
    """A block on a vertical Prismatic 'slide' with nothing under it: no equilibrium, an
    AnalysisError naming the coordinate that runs away (reference: the only coordinate)."""
    with pytest.raises(mbd.AnalysisError, match="slide") as info:
        mbd.equilibrium(block_on(None))
    assert "residual" in str(info.value)


def test_a_free_body_in_gravity_has_no_equilibrium():
    """A body on a SixDof in gravity: AnalysisError naming the joint 'free'."""
    m, g = _model("free")
    b = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-2, cs={"o": (0, 0, 0)})
    m.add(SixDof("free", g, b["o"]))
    with pytest.raises(mbd.AnalysisError, match="free"):
        mbd.equilibrium(m.build())


def test_an_unresisted_torque_has_no_equilibrium():
    """A wheel on a revolute with a constant Actuator torque and nothing to resist it:
    AnalysisError naming the axle."""
    m, g = _model("spin")
    w = m.add_body("wheel", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 0.1, cs={"o": (0, 0, 0)})
    axle = m.add(Revolute("axle", g, w["o"], axis=(0, 0, 1)))
    m.add(JointForce("motor", axle, Actuator(2.0)))
    with pytest.raises(mbd.AnalysisError, match="axle"):
        mbd.equilibrium(m.build())


def test_unknown_outputs_and_inputs_are_refused_by_name():
    """linearize(outputs=("nope.q",)) and inputs naming an element that does not exist:
    ValueError naming the offending name."""
    s = oscillator()
    with pytest.raises(ValueError, match=r"nope\.q"):
        mbd.linearize(s, s.initial_state(), outputs=("nope.q",))
    with pytest.raises(ValueError, match="no_such_motor"):
        mbd.linearize(s, s.initial_state(), inputs=("no_such_motor",))
    # a force element that is not an Actuator cannot be an input either
    with pytest.raises(ValueError, match="sd"):
        mbd.linearize(s, s.initial_state(), inputs=("sd",))
