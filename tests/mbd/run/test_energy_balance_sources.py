"""The energy balance books what sources put in apart from what passive elements take out
(issue 30): ``supplied`` is the work of motion drivers and actuators, ``dissipated`` the
outflow of dampers, >= 0, and kinetic + gravity + stored + dissipated = supplied closes at
the integration tolerance. Checked on a damped pendulum driven two ways, against closed
forms and against quadratures of the rows (torque x rate, d omega^2) with scipy.integrate;
and the balance's repr, summary and lines say the same.

Tolerances as in tests/mbd/run/test_energy_balance.py: DOP853 at rtol = atol = tol keeps these
short runs' global error at about tol of the largest energy term, so "at the integration
tolerance" is at most SLACK tol of it; the measured figure is beside every bound.
"""
import numpy as np
import pytest
from scipy.integrate import cumulative_simpson

import mbd
from forces import Actuator, Damper, JointForce, Spring
from joints import Revolute

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

G = 9.81
TOL = 1e-10
SLACK = 10.0
#: the pendulum: bob of mass M at L below the pivot, inertia J_CG about its CG, a viscous
#: damper D (N m s/rad) on the hinge. A rotation q about +y takes the bob to
#: (-L sin q, 0, -L cos q): its potential energy is -M g L cos q.
M, L, J_CG, D = 1.5, 0.6, 0.02, 0.4
J = J_CG + M * L ** 2                  # about the pivot, kg m^2
T_END = 4.0


def pendulum(name, torque=None, driver=None):
    """The damped pendulum hanging at rest, with a constant ``torque`` (N m, an Actuator)
    on its hinge or a ``driver`` (position, velocity, acceleration of t) prescribing it."""
    m = mbd.Model(name)
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    bob = m.add_body("bob", mass=M, cg=(0.0, 0.0, -L), inertia=J_CG * np.eye(3),
                     cs={"pivot": (0.0, 0.0, 0.0)})
    hinge = m.add(Revolute("hinge", g, bob["pivot"], axis=(0.0, 1.0, 0.0)))
    m.add(JointForce("damper", hinge, Damper(d=D)))
    if torque is not None:
        m.add(JointForce("motor", hinge, Actuator(torque)))
    if driver is not None:
        position, velocity, acceleration = driver
        m.add(mbd.MotionDriver("drive", hinge, position=position, velocity=velocity,
                               acceleration=acceleration))
    return m.build()


# --------------------------------------------------------------------------- constant torque

TORQUE = 6.0        # N m: more than M g L = 8.8 N m * sin q can hold below q = 0.75 rad


@pytest.fixture(scope="module")
def torqued():
    return pendulum("torqued", torque=TORQUE).simulate(T_END, output_step=0.002, rtol=TOL,
                                                       atol=TOL)


def test_constant_torque_supplies_its_work_and_the_damper_dissipates_d_omega_squared(torqued):
    r = torqued
    eb = r.energy_balance()
    q, w, t = r.joint("hinge").q, r.joint("hinge").v, r.t
    assert eb.role == {"damper": "passive", "motor": "actuator"}
    # supplied: the motor's work, torque x rate integrated over the rows by Simpson's rule
    # (measured 1.2e-9 J of an 8.5 J largest term, the same at h = 1 and 2 ms: the run's
    # integration error in the rates, not the quadrature's), and in closed form T (q - q0),
    # exact for a constant torque (measured 8e-15 J)
    by_rows = cumulative_simpson(TORQUE * w, x=t, initial=0.0)
    np.testing.assert_allclose(eb.supplied["motor"], by_rows, rtol=0,
                               atol=SLACK * TOL * eb.scale)
    np.testing.assert_allclose(eb.supplied["motor"], TORQUE * (q - q[0]), rtol=0,
                               atol=SLACK * TOL * eb.scale)
    np.testing.assert_array_equal(eb.dissipated["motor"], 0.0)
    np.testing.assert_array_equal(eb.supplied["damper"], 0.0)
    # dissipated: the damper's own rate d omega^2 integrated the same way (measured 4e-10 J)
    lost = cumulative_simpson(D * w ** 2, x=t, initial=0.0)
    np.testing.assert_allclose(eb.dissipated["damper"], lost, rtol=0,
                               atol=SLACK * TOL * eb.scale)
    assert lost[-1] > 1.0 and eb.supplied["motor"][-1] > 1.0     # both matter in this run
    # never negative, and never decreasing, beyond round-off (measured: >= 0, rising)
    bound = 1e-9 * eb.scale
    assert eb.total_dissipated.min() >= -bound
    assert np.diff(eb.total_dissipated).min() >= -bound
    # the balance: kinetic + gravity + stored + dissipated = supplied at every row
    assert eb.relative_residual < SLACK * TOL                    # measured 1.1e-10
    np.testing.assert_allclose(eb.kinetic + eb.gravity + eb.total_stored
                               + eb.total_dissipated - eb.total_supplied, eb.residual,
                               rtol=0, atol=1e-13 * eb.scale)
    # and each term is what the motion says: 1/2 J w^2, -M g L (cos q - cos q0)
    np.testing.assert_allclose(eb.kinetic, 0.5 * J * w ** 2, rtol=0, atol=1e-12 * eb.scale)
    np.testing.assert_allclose(eb.gravity, -M * G * L * (np.cos(q) - np.cos(q[0])), rtol=0,
                               atol=1e-12 * eb.scale)


def test_totals_summary_lines_and_repr_book_the_motor_as_supplied(torqued):
    eb = torqued.energy_balance()
    kinetic, gravity, stored, lost, fed, residual = eb.totals()
    assert fed == pytest.approx(eb.supplied["motor"][-1], abs=0.0)
    assert lost == pytest.approx(eb.dissipated["damper"][-1], abs=0.0)
    assert lost > 0.0 and fed > 0.0 and stored == 0.0
    assert (kinetic, gravity) == (eb.kinetic[-1], eb.gravity[-1])
    summary = eb.summary()
    assert f"dissipated {lost:.6g} = supplied {fed:.6g} J" in summary
    assert "largest residual" in summary
    assert eb.lines() == [
        f"damper: work {eb.work['damper'][-1]:+.6g} J = -(stored +0 + dissipated {lost:.6g})",
        f"motor: work {eb.work['motor'][-1]:+.6g} J = supplied {fed:.6g} - stored +0 "
        "(an actuator)"]
    text = repr(eb)
    assert text.startswith(f"EnergyBalance at t = {T_END:g} s, each term its change since "
                           "t = 0 s (J):")
    for what, value in (("kinetic", kinetic), ("gravity", gravity), ("dissipated", lost),
                        ("supplied", fed)):
        assert f"  {what:<11}{value:+12.6g} J" in text, what
    assert f"relative residual {eb.relative_residual:.1e}" in text


# --------------------------------------------------------------------------- motion driver

A, OMEGA = 0.8, 2.0 * np.pi / 1.6      # q = A sin(OMEGA t): rad, rad/s
PERIOD = 2.0 * np.pi / OMEGA


def swing(t):
    return A * np.sin(OMEGA * t)


def swing_rate(t):
    return A * OMEGA * np.cos(OMEGA * t)


def swing_acceleration(t):
    return -A * OMEGA ** 2 * np.sin(OMEGA * t)


def driver_work(t):
    """The driver's work from t = 0, closed form: its torque J q'' + M g L sin q + D q'
    times q', integrated: 1/2 J (q'^2 - q'(0)^2) + M g L (1 - cos q) + D A^2 OMEGA^2
    (t/2 + sin(2 OMEGA t) / (4 OMEGA))."""
    return (0.5 * J * (swing_rate(t) ** 2 - swing_rate(0.0) ** 2)
            + M * G * L * (1.0 - np.cos(swing(t)))
            + D * A ** 2 * OMEGA ** 2 * (0.5 * t + np.sin(2.0 * OMEGA * t) / (4.0 * OMEGA)))


@pytest.fixture(scope="module")
def driven():
    system = pendulum("driven", driver=(swing, swing_rate, swing_acceleration))
    return system.simulate(2.0 * PERIOD, output_step=0.002, rtol=TOL, atol=TOL)


def test_motion_driver_supplies_its_closed_form_work(driven):
    r = driven
    eb = r.energy_balance()
    t, w = r.t, r.joint("hinge").v
    assert eb.role == {"damper": "passive", "drive": "driver"}
    np.testing.assert_allclose(r.joint("hinge").q, swing(t), rtol=0, atol=1e-9)
    # supplied = the closed form (measured 7.6e-10 J of a 6.3 J largest term)
    np.testing.assert_allclose(eb.supplied["drive"], driver_work(t), rtol=0,
                               atol=SLACK * TOL * eb.scale)
    # ... = its reaction torque x rate over the rows by Simpson's rule (measured 1.1e-9 J)
    by_rows = cumulative_simpson(r.reaction("drive").value * w, x=t, initial=0.0)
    np.testing.assert_allclose(eb.supplied["drive"], by_rows, rtol=0,
                               atol=SLACK * TOL * eb.scale)
    # over whole periods the motion repeats: all it supplied the damper took out,
    # pi D A^2 OMEGA per period
    end = np.searchsorted(t, [PERIOD, 2.0 * PERIOD])
    assert np.allclose(t[end], [PERIOD, 2.0 * PERIOD], rtol=0, atol=1e-12)
    per_period = np.pi * D * A ** 2 * OMEGA
    np.testing.assert_allclose(eb.supplied["drive"][end], [per_period, 2 * per_period],
                               rtol=0, atol=SLACK * TOL * eb.scale)
    np.testing.assert_allclose(eb.dissipated["damper"][end], [per_period, 2 * per_period],
                               rtol=0, atol=SLACK * TOL * eb.scale)
    # dissipated = D times the integral of q'^2 in closed form, never negative
    exact = D * A ** 2 * OMEGA ** 2 * (0.5 * t + np.sin(2.0 * OMEGA * t) / (4.0 * OMEGA))
    np.testing.assert_allclose(eb.dissipated["damper"], exact, rtol=0,
                               atol=SLACK * TOL * eb.scale)
    assert eb.total_dissipated.min() >= -1e-9 * eb.scale
    assert eb.relative_residual < SLACK * TOL                     # measured 1.2e-10
    assert eb.lines()[-1] == f"drive: work {eb.work['drive'][-1]:+.6g} J = supplied (motion driver)"


# --------------------------------------------------------------------------- the sign rule

@pytest.mark.parametrize("rate, role", [(5.0, "source"), (-5.0, "passive")])
def test_an_element_of_no_kind_is_booked_by_the_sign_of_its_net_outflow(rate, role):
    """A stiffness varying in time is neither a damper nor a motor: its net outflow
    -(work + stored) grows at -1/2 K'(t) theta^2 (with E = 1/2 K theta^2 and the torque
    -K theta). Stiffening a deflected spring (K' > 0) pumps energy in: booked as supplied;
    softening it (K' < 0) drains energy: booked as dissipated, >= 0. A plain spring beside
    it only stores: passive, nothing dissipated."""
    from forces import VariableRotationalSpring
    m = mbd.Model("varying")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    bob = m.add_body("bob", mass=M, cg=(0.0, 0.0, -L), inertia=J_CG * np.eye(3),
                     cs={"pivot": (0.0, 0.0, 0.0)})
    hinge = m.add(Revolute("hinge", g, bob["pivot"], axis=(0.0, 1.0, 0.0), q0=0.5))
    m.add(JointForce("vary", hinge,
                     VariableRotationalSpring(K=lambda t: 30.0 + rate * t, K_min=1.0)))
    m.add(JointForce("spring", hinge, Spring(c=5.0)))
    r = m.simulate(3.0, output_step=0.002, rtol=TOL, atol=TOL)
    eb = r.energy_balance()
    assert eb.role == {"vary": role, "spring": "passive"}
    theta = r.joint("hinge").q
    # the net outflow by Simpson's rule on the rows (measured 1.4e-9 J, the run's error in
    # theta as above)
    outflow = cumulative_simpson(-0.5 * rate * theta ** 2, x=r.t, initial=0.0)
    assert abs(outflow[-1]) > 0.1
    if role == "source":
        np.testing.assert_allclose(eb.supplied["vary"], -outflow, rtol=0,
                                   atol=SLACK * TOL * eb.scale)
        np.testing.assert_array_equal(eb.dissipated["vary"], 0.0)
        assert eb.total_supplied[-1] > 0.1
    else:
        np.testing.assert_allclose(eb.dissipated["vary"], outflow, rtol=0,
                                   atol=SLACK * TOL * eb.scale)
        np.testing.assert_array_equal(eb.supplied["vary"], 0.0)
        assert eb.total_dissipated.min() >= -1e-9 * eb.scale
    assert np.abs(eb.dissipated["spring"]).max() < SLACK * TOL * eb.scale
    assert eb.relative_residual < SLACK * TOL


# --------------------------------------------------------------------------- the command line

def test_the_command_line_summary_prints_supplied_and_dissipated_apart(torqued):
    """``mbd run``'s summary: the balance's line and one line per element, under a header
    that says the terms are changes since the start; the motor's work is supplied, the
    damper's outflow dissipated (both positive)."""
    from mbd.cli.run import _summary
    eb = torqued.energy_balance()
    out = _summary("run", torqued.system, torqued, 1.0, [])
    rtol = torqued.stats["rtol"]          # the run's: TOL, or TOL +- 10 % under --perturb
    k = out.index(f"  energy balance over the run (rtol {rtol:g}), each term its change "
                  "since the start:")
    block = out[k + 1:]
    assert block == [f"    {eb.summary()}"] + [f"    {line}" for line in eb.lines()]
    lost, fed = eb.dissipated["damper"][-1], eb.supplied["motor"][-1]
    assert lost > 1.0 and fed > 1.0
    assert f"+ dissipated {lost:.6g} = supplied {fed:.6g} J" in block[0]
