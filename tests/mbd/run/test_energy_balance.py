"""The run's energy balance (``Result.work``, ``Result.energy_balance()``) against answers no
one here computed: closed-form motions (a damped oscillator, a constant force, a driven crank,
a slow lift), conservation laws (a pendulum), quadratures of the laws' own dissipation rates,
and the agreement of the two DOP853 implementations.

Tolerances: DOP853 with rtol = atol = tol keeps the global error of these short runs at about
tol relative to the largest energy term (measured 0.2 to 1.1 tol on the oscillator across
stiffness, damping, mass and run length, 1.8 tol on the demo), so a balance "at the
integration tolerance" is asserted as at most 10 tol of the largest term (``scale``). The
measured figure behind every bound is in the comment beside it.
"""
import numpy as np
import pytest
from scipy.integrate import quad, simpson

import mbd
from forces import (
    Actuator,
    Bistop,
    BodySpringDamper,
    ElastoBacklash,
    ElastoGap,
    JointForce,
    SpringDamper,
)
from joints import Prismatic, Revolute, SixDof

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

G = 9.81
TOL = 1e-10                    # rtol = atol of the runs below unless said otherwise
SLACK = 10.0                   # "at the integration tolerance": <= SLACK * tol * scale


def environment():
    return mbd.Environment(gravity=(0.0, 0.0, -G))


def slider(name, mass, axis, q0, v0, law):
    """A block on a Prismatic along ``axis`` from a ground at the origin, with a JointForce
    ``law`` on the prismatic (gravity -z)."""
    m = mbd.Model(name)
    g = m.add_ground("g", environment=environment())
    block = m.add_body("block", mass=mass, cg=(0.0, 0.0, 0.0),
                       inertia=np.diag([0.01, 0.02, 0.03]), cs={"o": (0.0, 0.0, 0.0)})
    rail = m.add(Prismatic("rail", g, block["o"], axis=axis, q0=q0, v0=v0))
    m.add(JointForce("element", rail, law))
    return m.build()


# --------------------------------------------------------------------------- 1. damped oscillator

#: m x'' + d x' + c (x - x0) = 0, underdamped (zeta = d / (2 sqrt(c m)) = 0.075), along x with
#: gravity along -z: the gravity term stays zero.
OSC_M, OSC_C, OSC_D, OSC_X0, OSC_XI, OSC_VI = 2.0, 50.0, 1.5, 0.1, 0.3, -0.4
OSC_T = 3.0


def oscillator():
    return slider("oscillator", OSC_M, (1.0, 0.0, 0.0), OSC_XI, OSC_VI,
                  SpringDamper(c=OSC_C, d=OSC_D, x0=OSC_X0))


def oscillator_exact():
    """x(t), v(t) of the oscillator: x - x0 = exp(-a t) (A cos wd t + B sin wd t)."""
    a = OSC_D / (2.0 * OSC_M)
    wd = np.sqrt(OSC_C / OSC_M - a * a)
    A = OSC_XI - OSC_X0
    B = (OSC_VI + a * A) / wd

    def x(t):
        return OSC_X0 + np.exp(-a * t) * (A * np.cos(wd * t) + B * np.sin(wd * t))

    def v(t):
        return np.exp(-a * t) * ((wd * B - a * A) * np.cos(wd * t)
                                 - (a * B + wd * A) * np.sin(wd * t))
    return x, v


@pytest.fixture(scope="module")
def oscillator_run():
    return oscillator().simulate(OSC_T, output_step=0.05, rtol=TOL, atol=TOL)


def test_damped_oscillator_dissipates_the_integral_of_d_v_squared(oscillator_run):
    r = oscillator_run
    x, v = oscillator_exact()
    eb = r.energy_balance()
    assert list(eb.work) == ["element"] and r.work.shape == (len(r.t), 1)
    # the motion itself is the exact one (measured max error 1.1e-11 m)
    np.testing.assert_allclose(r.joint("rail").q, x(r.t), rtol=0, atol=SLACK * TOL)
    # dissipated = int_0^t d v^2 ds on the exact v (quad to 1e-14), a J-sized quantity:
    # measured max error 5.3e-11 J against a 1.05 J total
    lost = np.array([quad(lambda s: OSC_D * v(s) ** 2, 0.0, t, limit=200, epsabs=1e-14,
                          epsrel=1e-13)[0] for t in r.t])
    assert lost[-1] > 1.0
    np.testing.assert_allclose(eb.dissipated["element"], lost, rtol=0,
                               atol=SLACK * TOL * eb.scale)
    # stored = the spring's 1/2 c (x - x0)^2 change on the exact x: measured 5.1e-11 J
    stored = 0.5 * OSC_C * ((x(r.t) - OSC_X0) ** 2 - (OSC_XI - OSC_X0) ** 2)
    np.testing.assert_allclose(eb.stored["element"], stored, rtol=0,
                               atol=SLACK * TOL * eb.scale)
    # the work is minus both; the kinetic term is the exact 1/2 m v^2 change; no gravity
    np.testing.assert_allclose(eb.work["element"], -(stored + lost), rtol=0,
                               atol=SLACK * TOL * eb.scale)
    np.testing.assert_allclose(eb.kinetic, 0.5 * OSC_M * (v(r.t) ** 2 - OSC_VI ** 2), rtol=0,
                               atol=SLACK * TOL * eb.scale)
    np.testing.assert_array_equal(eb.gravity, 0.0)
    # the residual is at the tolerance: measured 6.9e-11 of the largest term
    assert eb.relative_residual < SLACK * TOL
    assert eb.dissipated["element"].min() >= 0.0 and np.all(np.diff(eb.dissipated["element"]) > 0)


# --------------------------------------------------------------------------- 2. constant force

ACT_M, ACT_F, ACT_XI, ACT_VI = 1.5, 3.0, 0.2, -0.7


def test_actuator_work_is_force_times_displacement_and_the_kinetic_energy_gained():
    # a free slider along y (gravity -z): x = x0 + v0 t + F t^2 / (2 m), a quadratic, which an
    # eighth-order method integrates exactly: every figure below is round-off (measured
    # <= 1.8e-14 J on a 7.8 J work), hence 1e-12
    r = slider("pushed", ACT_M, (0.0, 1.0, 0.0), ACT_XI, ACT_VI,
               Actuator(ACT_F)).simulate(2.0, output_step=0.1, rtol=TOL, atol=TOL)
    eb = r.energy_balance()
    x = ACT_XI + ACT_VI * r.t + 0.5 * ACT_F / ACT_M * r.t ** 2
    np.testing.assert_allclose(r.joint("rail").q, x, rtol=0, atol=1e-12)
    work = eb.work["element"]
    np.testing.assert_allclose(work, ACT_F * (x - ACT_XI), rtol=0, atol=1e-12)
    np.testing.assert_allclose(work, ACT_F * (r.joint("rail").q - ACT_XI), rtol=0, atol=1e-12)
    np.testing.assert_allclose(eb.kinetic, work, rtol=0, atol=1e-12)
    # the slider first moves against F (v0 < 0): the work dips below zero, then supplies
    assert work.min() < -0.1 and work[-1] == pytest.approx(7.8, abs=1e-12)
    # an actuator stores nothing; what it puts in is "supplied" (a source, whatever the
    # sign), never negative dissipation
    np.testing.assert_array_equal(eb.stored["element"], 0.0)
    np.testing.assert_array_equal(eb.supplied["element"], work)
    np.testing.assert_array_equal(eb.dissipated["element"], 0.0)
    _, gravity, stored, lost, fed, residual = eb.totals()
    assert (gravity, stored, lost) == (0.0, 0.0, 0.0)
    assert fed == pytest.approx(7.8, abs=1e-12) and abs(residual) < 1e-12


# --------------------------------------------------------------------------- 3. pendulum

PEND_M, PEND_L, PEND_J = 1.0, 1.0, 1e-12      # SPEC §5's simple pendulum


def pendulum():
    """Released horizontal at rest: the bob at (L cos q, 0, -L sin q)."""
    m = mbd.Model("pendulum")
    g = m.add_ground("g", environment=environment())
    bob = m.add_body("bob", mass=PEND_M, cg=(PEND_L, 0.0, 0.0), inertia=PEND_J * np.eye(3),
                     cs={"pivot": (0.0, 0.0, 0.0)})
    m.add(Revolute("hinge", g, bob["pivot"], axis=(0.0, 1.0, 0.0)))
    return m.build()


@pytest.fixture(scope="module")
def pendulum_run():
    return pendulum().simulate(3.0, output_step=0.05, rtol=TOL, atol=TOL)


def test_pendulum_conserves_kinetic_plus_gravity(pendulum_run):
    # result.energy() = kinetic + gravity here (no elements); drift measured 1.9e-9 J of the
    # 9.8 J swing (1.9e-10 relative)
    r = pendulum_run
    assert r.work is None or r.work.shape == (len(r.t), 0)
    q, w = r.joint("hinge").q, r.joint("hinge").v
    swing = PEND_M * G * PEND_L * np.sin(q)                  # kinetic gained = height lost
    assert swing.max() > 9.8
    np.testing.assert_allclose(0.5 * (PEND_M * PEND_L ** 2 + PEND_J) * w ** 2, swing, rtol=0,
                               atol=SLACK * TOL * 9.81)
    E = r.energy()
    assert np.abs(E - E[0]).max() < SLACK * TOL * 9.81


def test_pendulum_energy_balance_has_no_work_entries(pendulum_run):
    # a run without force elements or drivers has a balance too: empty work, a residual of
    # kinetic + gravity (measured 1.9e-10 of the largest term)
    r = pendulum_run
    eb = r.energy_balance()
    assert eb.work == {} and eb.stored == {} and eb.dissipated == {}
    q, w = r.joint("hinge").q, r.joint("hinge").v
    np.testing.assert_allclose(eb.kinetic, 0.5 * (PEND_M * PEND_L ** 2 + PEND_J) * w ** 2,
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(eb.gravity, -PEND_M * G * PEND_L * np.sin(q), rtol=0,
                               atol=1e-12)
    np.testing.assert_allclose(eb.residual, eb.kinetic + eb.gravity, rtol=0, atol=0)
    assert eb.scale > 9.8 and eb.relative_residual < SLACK * TOL
    assert eb.lines() == []


# --------------------------------------------------------------------------- 4. motion drivers

LIFT_M, LIFT_L, LIFT_J, LIFT_T = 1.2, 0.8, 0.01, 2.0
LIFT_W = 2.0 * np.pi / LIFT_T


def lift():
    """A pendulum hanging at rest (bob at (0, 0, -L)) that a driver raises to horizontal in
    LIFT_T: q(t) = pi/2 (t/T - sin(W t) / (2 pi)), at rest at both ends. A rotation q about +y
    takes the bob to (-L sin q, 0, -L cos q): q = pi/2 is horizontal, L higher."""
    m = mbd.Model("lift")
    g = m.add_ground("g", environment=environment())
    bob = m.add_body("bob", mass=LIFT_M, cg=(0.0, 0.0, -LIFT_L), inertia=LIFT_J * np.eye(3),
                     cs={"pivot": (0.0, 0.0, 0.0)})
    hinge = m.add(Revolute("hinge", g, bob["pivot"], axis=(0.0, 1.0, 0.0)))
    m.add(mbd.MotionDriver(
        "lifter", hinge,
        position=lambda t: 0.5 * np.pi * (t / LIFT_T - np.sin(LIFT_W * t) / (2.0 * np.pi)),
        velocity=lambda t: 0.5 * np.pi * (1.0 - np.cos(LIFT_W * t)) / LIFT_T,
        acceleration=lambda t: 0.5 * np.pi * LIFT_W * np.sin(LIFT_W * t) / LIFT_T))
    return m.build()


def test_driver_lifting_a_pendulum_puts_in_m_g_L():
    r = lift().simulate(LIFT_T, output_step=0.05, rtol=TOL, atol=TOL)
    eb = r.energy_balance()
    assert list(eb.work) == ["lifter"] and eb.stored == {}
    work = eb.work["lifter"]
    q, w = r.joint("hinge").q, r.joint("hinge").v
    np.testing.assert_allclose(r.body("bob").position("cg")[-1], (-LIFT_L, 0.0, 0.0), atol=1e-9)
    # the work is the closed-form m g L (1 - cos q) + 1/2 (m L^2 + J) q'^2 along the motion:
    # measured max error 1.5e-9 J of 9.4 J (1.6e-10 relative)
    exact = (LIFT_M * G * LIFT_L * (1.0 - np.cos(q))
             + 0.5 * (LIFT_M * LIFT_L ** 2 + LIFT_J) * w ** 2)
    np.testing.assert_allclose(work, exact, rtol=0, atol=SLACK * TOL * eb.scale)
    # at rest at the top: exactly m g L in, positive, and fed in all along (the torque
    # I q'' + m g L sin q > 0 and q' > 0 on (0, T): |I q''| <= 1.92 N m < m g L sin q there)
    assert work[-1] == pytest.approx(LIFT_M * G * LIFT_L, abs=SLACK * TOL * eb.scale)
    assert np.all(np.diff(work) > 0.0)
    assert eb.relative_residual < SLACK * TOL          # measured 1.6e-10
    *_, lost, fed, _ = eb.totals()
    assert fed == pytest.approx(LIFT_M * G * LIFT_L, abs=1e-8) and lost == 0.0
    assert eb.lines() == [f"lifter: work {work[-1]:+.6g} J = supplied (motion driver)"]


CRANK_OMEGA, CRANK_C, CRANK_D, CRANK_X0 = 3.0, 4.0, 0.3, 0.5
CRANK_T = 2.0


def crank():
    """A bob on a crank (its CG at (L, 0, 0), horizontal) turned at a constant OMEGA against
    gravity and a torsion SpringDamper on its own hinge."""
    m = mbd.Model("crank")
    g = m.add_ground("g", environment=environment())
    bob = m.add_body("bob", mass=LIFT_M, cg=(LIFT_L, 0.0, 0.0), inertia=LIFT_J * np.eye(3),
                     cs={"pivot": (0.0, 0.0, 0.0)})
    hinge = m.add(Revolute("hinge", g, bob["pivot"], axis=(0.0, 1.0, 0.0), v0=CRANK_OMEGA))
    m.add(JointForce("spring", hinge, SpringDamper(c=CRANK_C, d=CRANK_D, x0=CRANK_X0)))
    m.add(mbd.MotionDriver("motor", hinge, position=lambda t: CRANK_OMEGA * t,
                           velocity=lambda t: CRANK_OMEGA, acceleration=lambda t: 0.0))
    return m.build()


@pytest.fixture(scope="module")
def crank_run():
    return crank().simulate(CRANK_T, output_step=0.05, rtol=TOL, atol=TOL)


def test_driven_crank_work_is_gravity_plus_stored_plus_dissipated(crank_run):
    r = crank_run
    eb = r.energy_balance()
    q = CRANK_OMEGA * r.t
    # closed forms along q = OMEGA t (measured errors <= 8e-14 J: the state is exact)
    gravity = -LIFT_M * G * LIFT_L * np.sin(q)                  # the CG at (L cos q, 0, -L sin q)
    stored = 0.5 * CRANK_C * ((q - CRANK_X0) ** 2 - CRANK_X0 ** 2)
    lost = CRANK_D * CRANK_OMEGA ** 2 * r.t
    np.testing.assert_allclose(eb.kinetic, 0.0, atol=1e-12)
    np.testing.assert_allclose(eb.gravity, gravity, rtol=0, atol=1e-12 * eb.scale)
    np.testing.assert_allclose(eb.stored["spring"], stored, rtol=0, atol=1e-12 * eb.scale)
    np.testing.assert_allclose(eb.dissipated["spring"], lost, rtol=0,
                               atol=SLACK * TOL * eb.scale)
    # the driver supplies all of it: measured max error 1.2e-9 J of 68 J (1.8e-11 relative)
    np.testing.assert_allclose(eb.work["motor"], gravity + stored + lost, rtol=0,
                               atol=SLACK * TOL * eb.scale)
    assert eb.work["motor"][-1] > 60.0
    assert eb.relative_residual < SLACK * TOL
    # the motor's work is the integral of its reported torque times OMEGA (so the reaction's
    # sign agrees): Simpson's rule on the 0.05 s rows, measured 7.4e-6 J off, 4.6e-7 J at
    # 0.025 s rows (16x: its h^4 error, not the run's)
    torque = r.reaction("motor").value
    assert simpson(torque * CRANK_OMEGA, x=r.t) == pytest.approx(eb.work["motor"][-1],
                                                                  abs=5e-5)


# --------------------------------------------------------------------------- 5. tolerance

def test_residual_scales_with_the_tolerance():
    # measured on the oscillator: 5.4e-7 at 1e-6 and 6.9e-11 at 1e-10, a ratio of 7800 (3500 to
    # 17000 over variations of c, d, m, the run's length and output step, always <= 1.1 tol):
    # the error of a tolerance-proportional step control scales with tol, 1e4 here; 1000
    # allows a factor of 10 off proportionality
    system = oscillator()
    rel = {}
    for tol in (1e-6, 1e-10):
        eb = system.simulate(OSC_T, output_step=0.05, rtol=tol, atol=tol).energy_balance()
        rel[tol] = eb.relative_residual
        assert rel[tol] < SLACK * tol
    assert rel[1e-6] > 1000.0 * rel[1e-10]


# --------------------------------------------------------------------------- 6. the demo

@pytest.fixture(scope="module")
def demo_run():
    from mbd.cli import demo
    system = demo.build_model().build()
    return demo, system.simulate(demo.T_END, output_step=demo.OUTPUT_STEP, rtol=demo.RTOL,
                                 atol=demo.ATOL)


def test_demo_balance_closes(demo_run):
    demo, r = demo_run
    eb = r.energy_balance()
    names = [fe.name for fe in r.system.force_elements]
    assert sorted(eb.work) == sorted(names) == sorted(eb.dissipated)
    # measured 1.8 RTOL (residual 4e-9 J against a 3.4 J largest term)
    assert eb.relative_residual < SLACK * demo.RTOL
    # totals() at every row: kinetic + gravity + stored + dissipated - supplied = residual
    # (round-off: measured 1.6e-15 J); the variable spring, which supplies over the run, is
    # the only source
    bound = SLACK * demo.RTOL * eb.scale
    assert [name for name, role in eb.role.items() if role != "passive"] == ["variable_spring"]
    for k in range(len(r.t)):
        kinetic, gravity, stored, lost, fed, residual = eb.totals(k)
        assert residual == eb.residual[k]
        assert abs(kinetic + gravity + stored + lost - fed - residual) < 1e-12
        assert lost >= -bound and fed == eb.supplied["variable_spring"][k]
    # every element but the variable spring only takes energy out (its law's dissipation rate
    # is >= 0: d v^2 or a clamped share of it): dissipated >= 0 and never decreasing, up to
    # the integration error of splitting work into stored and dissipated (measured: >= -7e-30
    # J, steps >= -7e-30 J)
    for name in names:
        if name == "variable_spring":
            continue
        lost = eb.dissipated[name]
        assert lost[-1] > 0.1, name                  # each one took out 0.17 to 2.9 J
        assert lost.min() >= -bound and np.diff(lost).min() >= -bound, name
    # the others stay put: the totals supply nothing but the variable spring's
    fed = eb.totals()[4]
    assert fed == pytest.approx(eb.supplied["variable_spring"][-1], abs=1e-15)
    np.testing.assert_array_equal(eb.dissipated["variable_spring"], 0.0)


def test_demo_variable_spring_dissipates_minus_half_dK_dt_theta_squared(demo_run):
    # with E = 1/2 K(t) theta^2 and the torque -K theta on the follower, its dissipation rate
    # -(power + dE/dt) is -1/2 K'(t) theta^2 while K >= K_min (0 while K_min is in use: a
    # constant spring). By the end-corrected trapezoidal rule on the rows (exact at the
    # K = K_min events, which are rows), error O(h^4): measured 3.3e-7 J at the demo's 0.01 s
    # rows and 1.7e-8 J at 0.005 s (19x: the h^4 law), against a 0.31 J integral
    demo, r = demo_run
    f = r.force("variable_spring")
    t, theta, rate = r.t, f.x, f.xdot
    K1 = 10.0 * np.pi * np.cos(2.0 * np.pi * t)            # K = 6 + 5 sin(2 pi t)
    K2 = -20.0 * np.pi ** 2 * np.sin(2.0 * np.pi * t)
    np.testing.assert_allclose(demo.stiffness(t), 6.0 + 5.0 * np.sin(2.0 * np.pi * t))
    g = -0.5 * K1 * theta ** 2
    dg = -0.5 * K2 * theta ** 2 - K1 * theta * rate
    h = np.diff(t)
    on = demo.stiffness(0.5 * (t[1:] + t[:-1])) > demo.K_MIN
    step = np.where(on, 0.5 * h * (g[1:] + g[:-1]) + h ** 2 / 12.0 * (dg[:-1] - dg[1:]), 0.0)
    expected = np.concatenate([[0.0], np.cumsum(step)])
    # its net outflow -(work + stored), booked as a (negative) supply: a source over the run
    lost = -r.energy_balance().supplied["variable_spring"]
    assert np.abs(expected).max() > 0.3
    np.testing.assert_allclose(lost, expected, rtol=0, atol=2e-6)
    # here it supplies energy over the run (K falls while theta is large): -0.12 J
    assert lost[-1] < -0.1


# --------------------------------------------------------------------------- 7. two integrators

def mixed():
    """A pendulum with an ElastoBacklash and a BodySpringDamper to a ground, a slider dropping
    onto an ElastoGap with a SpringDamper, a block between Bistop stops: every kind of element
    with constant parameters, and contact events."""
    m = mbd.Model("mixed")
    env = environment()
    pivot = m.add_ground("pivot", at=(0.0, 0.0, 1.0), environment=env)
    arm = m.add_body("arm", mass=1.0, cg=(0.0, 0.0, 0.6), inertia=np.diag([0.053, 0.053, 1e-4]),
                     cs={"top": (0.0, 0.0, 1.0), "tip": (0.0, 0.0, 0.2)})
    hinge = m.add(Revolute("hinge", pivot, arm["top"], axis=(0.0, 1.0, 0.0), q0=0.2, v0=3.0))
    m.add(JointForce("backlash", hinge, ElastoBacklash(c=150.0, d=0.5, b=0.7)))
    anchor = m.add_ground("anchor", at=(0.7, 0.0, 0.2))
    m.add(BodySpringDamper("strap", anchor, arm["tip"], k=15.0, b=0.3, r0=0.5))
    guide = m.add_ground("guide", at=(0.0, -1.0, 0.0), environment=env)
    s = m.add_body("slider", mass=0.5, cg=(0.0, -1.0, 0.0), inertia=np.diag([3e-3, 3e-3, 5e-3]),
                   cs={"o": (0.0, -1.0, 0.0)})
    drop = m.add(Prismatic("drop", guide, s["o"], axis=(0.0, 0.0, 1.0), q0=0.4))
    m.add(JointForce("pad", drop, ElastoGap(c=2000.0, d=4.0, s_rel0=0.0, n=1.0)))
    m.add(JointForce("cushion", drop, SpringDamper(c=5.0, d=0.2, x0=0.3)))
    slot = m.add_ground("slot", at=(1.0, -1.0, 0.0), environment=env)
    b = m.add_body("block", mass=0.5, cg=(1.0, -1.0, 0.0), inertia=np.diag([2e-3] * 3),
                   cs={"I": (1.0, -1.0, 0.0)})
    slide = m.add(Prismatic("slide", slot, b["I"], axis=(1.0, 0.0, 0.0), v0=0.9))
    m.add(JointForce("stops", slide, Bistop(x1=-0.3, x2=0.3, k=2e4, e=1.5, cmax=5.0, d=2e-3)))
    return m.build()


def test_compiled_and_scipy_dop853_give_the_same_work():
    system = mixed()
    runs = {c: system.simulate(2.0, output_step=0.02, rtol=TOL, atol=TOL, compiled=c)
            for c in (None, False)}
    a, b = runs[None], runs[False]
    assert (a.stats["stepper"], b.stats["stepper"]) == ("compiled", "scipy")
    assert len(a.events) == len(b.events) > 10          # 44 contact switches
    assert a.work.shape == b.work.shape == (len(a.t), 5)
    np.testing.assert_allclose(a.t, b.t, rtol=0, atol=1e-12)
    # the same method and step control: measured <= 3.6e-12 of each column's largest value
    scale = np.abs(a.work).max(axis=0)
    assert scale.min() > 0.1
    np.testing.assert_array_less(np.abs(a.work - b.work).max(axis=0), 1e-9 * scale)
    for r in (a, b):                                    # and both balance (measured 4.6e-10)
        assert r.energy_balance().relative_residual < SLACK * TOL


# --------------------------------------------------------------------------- 8. 3-D spring

BSD_K, BSD_B, BSD_R0, BSD_M = 120.0, 0.8, 0.35, 1.5
BSD_ANCHOR = np.array([0.1, -0.05, 0.5])


def hanging_box():
    """A box on a SixDof, hung from a ground anchor by a BodySpringDamper at a hook off its CG,
    thrown sideways and spun: it swings, bounces and tumbles."""
    m = mbd.Model("hanging_box")
    anchor = m.add_ground("anchor", at=BSD_ANCHOR)
    origin = m.add_ground("origin", at=(0.0, 0.0, 0.0), environment=environment())
    box = m.add_body("box", mass=BSD_M, cg=(0.0, 0.0, 0.0),
                     inertia=np.array([[0.02, 0.002, 0.0], [0.002, 0.03, 0.001],
                                       [0.0, 0.001, 0.015]]),
                     cs={"hook": (0.06, 0.03, 0.1)})
    m.add(SixDof("free", origin, box["cg"], v0=[0.5, -0.3, 0.2, (0.4, -1.0, 2.0)]))
    m.add(BodySpringDamper("strap", anchor, box["hook"], k=BSD_K, b=BSD_B, r0=BSD_R0))
    return m.build()


def test_body_spring_damper_in_3d_stores_half_k_stretch_squared():
    r = hanging_box().simulate(2.0, output_step=1e-3, rtol=TOL, atol=TOL)
    eb = r.energy_balance()
    length = np.linalg.norm(r.body("box").position("hook") - BSD_ANCHOR, axis=1)
    energy = 0.5 * BSD_K * (length - BSD_R0) ** 2
    # stored from the body's pose: round-off (measured 5.8e-15 J of 2.6 J)
    assert np.abs(energy - energy[0]).max() > 2.0
    np.testing.assert_allclose(eb.stored["strap"], energy - energy[0], rtol=0, atol=1e-12)
    # gravity from the CG's height: round-off
    z = r.body("box").position("cg")[:, 2]
    np.testing.assert_allclose(eb.gravity, BSD_M * G * (z - z[0]), rtol=0, atol=1e-12)
    # dissipated = int b (d|r|/dt)^2 by Simpson's rule on the 1 ms rows: its error bound
    # h^4 T max|f''''| / 180 = 1.1e-9 J here, measured 1.0e-10 J against a 0.46 J total
    rate = r.force("strap").xdot
    lost = eb.dissipated["strap"]
    simpson_lost = [simpson(BSD_B * rate[:k + 1] ** 2, x=r.t[:k + 1])
                    for k in range(200, len(r.t), 200)]
    assert lost[-1] > 0.4
    np.testing.assert_allclose(lost[200::200], simpson_lost, rtol=0, atol=2e-9)
    assert np.diff(lost).min() > 0.0
    # the balance closes: measured 5.0e-11 of the 2.9 J largest term
    assert eb.kinetic.max() > 0.1 and eb.relative_residual < SLACK * TOL


# --------------------------------------------------------------------------- 9. columns

def test_columns_export_the_work_of_every_element_and_driver(crank_run, tmp_path):
    r = crank_run
    names, table = r.columns()
    work_names = [n for n in names if n.endswith(".work")]
    assert work_names == ["spring.work", "motor.work"]
    for k, name in enumerate(work_names):
        np.testing.assert_array_equal(table[:, names.index(name)], r.work[:, k])
    # and the CSV carries them, to the last digit
    path = r.to_csv(tmp_path / "crank.csv")
    with open(path) as fh:
        header = fh.readline().strip().split(",")
    assert header == names
    csv = np.loadtxt(path, delimiter=",", skiprows=1)
    for name in work_names:
        np.testing.assert_array_equal(csv[:, header.index(name)], table[:, names.index(name)])
