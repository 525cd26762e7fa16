"""Equilibrium, linearization and modes against closed forms (issue 13, SPEC §6)."""
import numpy as np
import pytest
from scipy.optimize import brentq

import mbd
from forces import Actuator, Bistop, ElastoGap, JointForce, Spring, SpringDamper
from joints import Prismatic, Revolute, SixDof

G = 9.81


def _model(name):
    m = mbd.Model(name)
    return m, m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -G)))


def pendulum(l=1.5, drawn_level=True, spring=None):
    """A point mass 1 kg on a massless link of length l about y; drawn level (+x) or hanging
    (-z); ``spring``: a torsional Spring stiffness unstretched in the drawing."""
    m, g = _model("pendulum")
    cg = (l, 0, 0) if drawn_level else (0, 0, -l)
    bob = m.add_body("bob", mass=1.0, cg=cg, inertia=np.eye(3) * 1e-14, cs={"o": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, bob["o"], axis=(0, 1, 0)))
    if spring is not None:
        m.add(JointForce("spring", hinge, Spring(c=spring)))
    return m.build()


def test_a_pendulum_drawn_level_comes_to_rest_hanging_at_sqrt_g_over_l():
    l = 1.5
    eq = mbd.equilibrium(pendulum(l))
    assert eq.residual <= 1e-10 and eq.stable
    assert eq.coordinates()["hinge"] == pytest.approx(np.pi / 2, abs=1e-10)   # +x turns to -z
    (mode,) = eq.linear.modes()
    assert mode.frequency == pytest.approx(np.sqrt(G / l) / (2 * np.pi), rel=1e-8)
    assert mode.kind == "oscillating" and mode.damping_ratio == pytest.approx(0, abs=1e-9)


def test_an_inverted_pendulum_grows_at_sqrt_g_over_l():
    l = 0.8
    m, g = _model("inverted")
    bob = m.add_body("bob", mass=1.0, cg=(0, 0, l), inertia=np.eye(3) * 1e-14,
                     cs={"o": (0, 0, 0)})
    m.add(Revolute("hinge", g, bob["o"], axis=(0, 1, 0)))
    s = m.build()
    lin = mbd.linearize(s, s.initial_state())
    growing = [md for md in lin.modes() if not md.stable]
    assert len(growing) == 1 and not lin.stable
    assert growing[0].growth_rate == pytest.approx(np.sqrt(G / l), rel=1e-8)
    eq = mbd.equilibrium(s)        # drawn at rest upright: an equilibrium, reported unstable
    assert eq.residual <= 1e-10 and not eq.stable


def test_a_double_pendulum_of_point_masses():
    l = 1.0
    m, g = _model("double")
    a = m.add_body("a", mass=1.0, cg=(0, 0, -l), inertia=np.eye(3) * 1e-14, cs={"o": (0, 0, 0)})
    b = m.add_body("b", mass=1.0, cg=(0, 0, -2 * l), inertia=np.eye(3) * 1e-14,
                   cs={"o": (0, 0, -l)})
    m.add(Revolute("h1", g, a["o"], axis=(0, 1, 0)))
    a.add_cs("end", (0, 0, -l))
    m.add(Revolute("h2", a["end"], b["o"], axis=(0, 1, 0)))
    s = m.build()
    f = sorted(md.frequency for md in mbd.linearize(s, s.initial_state()).modes())
    exact = sorted(np.sqrt(G / l * (2 + k * np.sqrt(2))) / (2 * np.pi) for k in (-1, 1))
    np.testing.assert_allclose(f, exact, rtol=1e-8)


def test_a_damped_oscillator_and_its_second_order_form():
    mass, c, d = 2.0, 800.0, 6.0
    m, g = _model("oscillator")
    blk = m.add_body("blk", mass=mass, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3,
                     cs={"o": (0, 0, 0)})
    j = m.add(Prismatic("slide", g, blk["o"], axis=(1, 0, 0)))
    m.add(JointForce("sd", j, SpringDamper(c=c, d=d)))
    s = m.build()
    lin = mbd.linearize(s, s.initial_state(), inputs=("slide",), outputs=("blk.cg.x",))
    (mode,) = lin.modes()
    assert mode.damping_ratio == pytest.approx(d / (2 * np.sqrt(c * mass)), rel=1e-8)
    assert mode.frequency == pytest.approx(np.sqrt(c / mass) / (2 * np.pi), rel=1e-8)
    np.testing.assert_allclose([lin.M[0, 0], lin.K[0, 0], lin.Cd[0, 0]], [mass, c, d],
                               rtol=1e-8)
    np.testing.assert_allclose(lin.B[:, 0], [0, 1 / mass], rtol=1e-12)
    np.testing.assert_allclose(lin.C, [[1, 0]], atol=1e-12)
    assert lin.state_names == ["slide.q", "slide.v"]
    assert lin.to_scipy().A.shape == (2, 2)


def test_a_pendulum_on_a_torsional_spring_rests_where_k_theta_is_m_g_l_sin_theta():
    l, k = 1.0, 6.0   # drawn upright, the spring unstretched there: k < m g l, so it buckles
    m, g = _model("sprung")
    bob = m.add_body("bob", mass=1.0, cg=(0, 0, l), inertia=np.eye(3) * 1e-14,
                     cs={"o": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, bob["o"], axis=(0, 1, 0), q0=0.3))
    m.add(JointForce("spring", hinge, Spring(c=k)))
    s = m.build()
    eq = mbd.equilibrium(s)
    theta = brentq(lambda th: k * th - 1.0 * G * l * np.sin(th), 0.1, np.pi)
    assert abs(eq.coordinates()["hinge"]) == pytest.approx(theta, abs=1e-9)
    (mode,) = eq.linear.modes()
    omega2 = (k - G * l * np.cos(theta)) / l ** 2
    assert mode.frequency == pytest.approx(np.sqrt(omega2) / (2 * np.pi), rel=1e-8)


def block_on(law, q0=0.5, mass=2.0):
    m, g = _model("block")
    blk = m.add_body("block", mass=mass, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3,
                     cs={"o": (0, 0, 0)})
    j = m.add(Prismatic("slide", g, blk["o"], axis=(0, 0, 1), q0=q0))
    m.add(JointForce("stop", j, law))
    return m.build()


def test_a_block_rests_in_contact_on_an_elastogap():
    c, n, mass = 1e4, 1.5, 2.0
    eq = mbd.equilibrium(block_on(ElastoGap(c=c, d=10.0, s_rel0=0.0, n=n), mass=mass))
    assert eq.coordinates()["slide"] == pytest.approx(-(mass * G / c) ** (1 / n), rel=1e-12)
    assert eq.active["stop"] == {"contact": True} and eq.residual <= 1e-10


def test_a_block_rests_on_the_lower_bistop():
    k, e, mass = 1e7, 2.1, 2.0
    eq = mbd.equilibrium(block_on(Bistop(x1=0.0, x2=5.0, k=k, e=e, cmax=1.0, d=1e-3), q0=2.0,
                                  mass=mass))
    assert eq.coordinates()["slide"] == pytest.approx(-(mass * G / k) ** (1 / e), rel=1e-12)
    assert eq.active["stop"] == {"contact": -1}
    (mode,) = eq.linear.modes()
    pen = (mass * G / k) ** (1 / e)
    klin = k * e * pen ** (e - 1)
    assert mode.frequency == pytest.approx(np.sqrt(klin / mass) / (2 * np.pi), rel=1e-8)
    assert mode.damping_ratio == pytest.approx(1.0 / (2 * np.sqrt(klin * mass)), rel=1e-8)


def test_a_free_body_in_gravity_has_no_equilibrium():
    m, g = _model("free")
    b = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-2, cs={"o": (0, 0, 0)})
    m.add(SixDof("free", g, b["o"]))
    with pytest.raises(mbd.AnalysisError, match=r"joint 'free' q2 .*runs away.*residual 9.81"):
        mbd.equilibrium(m.build())


def test_an_unresisted_torque_has_no_equilibrium():
    m, g = _model("spin")
    b = m.add_body("wheel", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-1,
                   cs={"o": (0, 0, 0)})
    j = m.add(Revolute("axle", g, b["o"], axis=(0, 0, 1)))
    m.add(JointForce("motor", j, Actuator(2.0)))
    with pytest.raises(mbd.AnalysisError, match=r"joint 'axle' q .*runs away"):
        mbd.equilibrium(m.build())


def test_unknown_names_are_refused():
    s = pendulum()
    with pytest.raises(ValueError, match=r"output 'nope.q'"):
        mbd.linearize(s, s.initial_state(), outputs=("nope.q",))
    with pytest.raises(ValueError, match=r"input 'motor'"):
        mbd.linearize(s, s.initial_state(), inputs=("motor",))
    with pytest.raises(TypeError, match="state must be an mbd.State"):
        mbd.linearize(s, (0.0, [0.0], [0.0]))
    with pytest.raises(ValueError, match="equilibrium: tol"):
        mbd.equilibrium(s, tol=-1.0)


def test_a_small_motion_along_a_mode_oscillates_and_decays_as_the_mode_says():
    """A damped pendulum (nonlinear) released 1e-4 rad from rest along its mode: the
    simulated motion, fitted with a e^(s t) cos(w t + p), has the mode's s and w to 1e-4."""
    from scipy.optimize import curve_fit

    from forces import Damper
    l = 1.0
    m, g = _model("damped")
    bob = m.add_body("bob", mass=1.0, cg=(0, 0, -l), inertia=np.eye(3) * 1e-14,
                     cs={"o": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, bob["o"], axis=(0, 1, 0)))
    m.add(JointForce("damper", hinge, Damper(d=0.2)))
    s = m.build()
    eq = mbd.equilibrium(s)
    (mode,) = eq.linear.modes()
    r = s.simulate(8.0, output_step=0.005, q0={"hinge": 1e-4}, rtol=1e-12, atol=1e-14)
    x = r.joint("hinge").q - eq.coordinates()["hinge"]

    def decaying(t, a, sigma, omega, phase):
        return a * np.exp(sigma * t) * np.cos(omega * t + phase)
    lam = mode.eigenvalue
    (a, sigma, omega, phase), _ = curve_fit(decaying, r.t, x, p0=(1e-4, lam.real, lam.imag, 0))
    assert sigma == pytest.approx(lam.real, rel=1e-4)
    assert omega == pytest.approx(lam.imag, rel=1e-4)
