"""The control examples (SPEC §9) show what they claim, each claim against a computation of
its own: closed forms, scipy's integrators and Riccati solver, the controllers' laws written
out here from their docstrings.

* examples/cart_pole_lqr.py: ``linearize`` of the open loop is Lagrange's linearisation; the
  run is the nonlinear cart-pole under u = -K x (scipy); the 0.2 rad tilt is caught; the
  closed loop's eigenvalues, from ``linearize`` of the closed-loop model and fitted from a
  run, are the design's eig(A - B K).
* examples/gearbox_pid.py: the samples at k T exactly; the PID's outputs are its law of the
  samples' inputs, held to the next sample; the limit cycle of tooth contacts does not decay
  and is reached from a step 10^4 times smaller too; without backlash the loop settles at the
  sampled rigid loop's rate.
* examples/pd_pendulum.py: the closed form solves the linearised equation; the run is the
  nonlinear pendulum (scipy) and lies within the nonlinear remainder's bound of the closed
  form, the difference cubic in the step.
"""
import contextlib
import io

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mbd
from tests.test_examples import load

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

cp = load("cart_pole_lqr")
gp = load("gearbox_pid")
pd = load("pd_pendulum")


def printed(function):
    """(what function() returns, what it printed)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        found = function()
    return found, out.getvalue()


# ----------------------------------------------------------------------------- cart-pole

@pytest.fixture(scope="module")
def cart_pole():
    """main()'s (result of the catch, predicted, linearized, measured eigenvalues) and its
    printout."""
    return printed(cp.main)


def lagrange_linearisation():
    """(A, B) of [x, theta, x', theta'] and F from the docstring's equations at the upright:
    [[M + m, m l], [m l, J]] q'' = [F, m g l theta], J = J_cg + m l^2."""
    m, l = cp.M_POLE, cp.L
    mass = np.array([[cp.M_CART + m, m * l], [m * l, cp.J_POLE + m * l ** 2]])
    inv = np.linalg.inv(mass)
    A = np.zeros((4, 4))
    A[:2, 2:] = np.eye(2)
    A[2:, :2] = inv @ np.array([[0.0, 0.0], [0.0, m * cp.G * l]])
    B = np.zeros((4, 1))
    B[2:, 0] = inv @ [1.0, 0.0]
    return A, B


def test_linearize_of_the_open_loop_is_lagranges():
    """linearize's A and B in [x, theta, x', theta'] (its outputs are those states) against
    the closed form: B is exact (an actuator's column; measured 2e-16), A by Ridders'
    differences (measured 3e-17 relative, asserted 1e-9); the LQR gain is then scipy's for
    the closed form's (A, B) (measured 1e-14 relative, asserted 1e-9)."""
    import scipy.linalg
    K, A, B = cp.design()
    A0, B0 = lagrange_linearisation()
    np.testing.assert_allclose(A, A0, rtol=0, atol=1e-9 * np.abs(A0).max())
    np.testing.assert_allclose(B, B0, rtol=0, atol=1e-12)
    P = scipy.linalg.solve_continuous_are(A0, B0, cp.Q, cp.R)
    np.testing.assert_allclose(K, np.linalg.solve(cp.R, B0.T @ P), rtol=1e-9)


def test_the_tilt_is_caught_as_the_nonlinear_cart_pole_moves(cart_pole):
    """The run from a 0.2 rad lean against scipy's DOP853 on Lagrange's nonlinear equations
    with F = -K x (measured 1.4e-10, asserted 1e-8; the run's rtol is 1e-10): the pole and the
    cart come back, |theta| < 1e-3 rad and |x| < 1e-2 m from 3.5 s on (measured 2.2e-4 rad and
    7e-4 m);
    the push is the Gain's -K x at every row (round-off), largest at the start."""
    (result, _, _, _), out = cart_pole
    K = cp.design()[0]
    m, l, g = cp.M_POLE, cp.L, cp.G
    J = cp.J_POLE + m * l ** 2

    def rhs(t, z):
        _, th, xd, thd = z
        F = -(K @ z)[0]
        mass = [[cp.M_CART + m, m * l * np.cos(th)], [m * l * np.cos(th), J]]
        force = [F + m * l * np.sin(th) * thd ** 2, m * g * l * np.sin(th)]
        return [xd, thd, *np.linalg.solve(mass, force)]

    sol = solve_ivp(rhs, (0.0, cp.T_END), [0.0, cp.TILT, 0.0, 0.0], method="DOP853",
                    rtol=1e-12, atol=1e-14, dense_output=True)
    X = cp.states(result)
    np.testing.assert_allclose(X, sol.sol(result.t), rtol=0, atol=1e-8)
    late = result.t >= 3.5
    assert np.abs(X[1, late]).max() < 1e-3 and np.abs(X[0, late]).max() < 1e-2
    assert X[0].max() > 0.3          # the cart ran under the pole to catch it
    push = result.force("push").value
    np.testing.assert_allclose(push, -(K @ X)[0], rtol=0, atol=1e-12)
    assert np.abs(push).max() == pytest.approx(abs(K[0, 1]) * cp.TILT, rel=1e-12)  # at t = 0
    assert f"caught from a {cp.TILT} rad tilt" in out


def test_the_closed_loops_eigenvalues_are_the_designs(cart_pole):
    """eig(A - B K) against

    * ``linearize`` of the closed-loop model about the upright (no inputs: the Gain is in its
      dynamics), which main() prints: measured 4e-14 relative, asserted 1e-9 (Ridders'
      error estimate of its A is 5e-13);
    * the eigenvalues fitted from the closed loop's run from a 1e-4 rad lean (the state's
      one-row map by least squares): measured 2.5e-7 relative, the nonlinear terms' theta^2 ~
      1e-8 and the integration's 1e-12; from 1e-3 rad the fit is off by 5e-5, a hundred
      times more, as theta^2 says; asserted 1e-5."""
    (_, predicted, linearized, measured), out = cart_pole
    K, A, B = cp.design()
    np.testing.assert_allclose(predicted, np.sort_complex(np.linalg.eigvals(A - B @ K)),
                               rtol=1e-14)
    assert predicted.real.max() == pytest.approx(-2.3856, abs=1e-4)     # the docstring's
    np.testing.assert_allclose(linearized, predicted, rtol=1e-9)
    system = cp.build_model(K=K, tilt=0.0).build()
    linear = mbd.linearize(system, system.initial_state())
    np.testing.assert_allclose(np.sort_complex(linear.eigenvalues()), predicted, rtol=1e-9)
    np.testing.assert_allclose(measured, predicted, rtol=1e-5)
    assert "predicted eig(A - B K)" in out and "linearize(closed loop)" in out
    assert f"{measured[0].real:+12.6f}" in out


# ----------------------------------------------------------------------------- gearbox PID

@pytest.fixture(scope="module")
def gearbox_pid():
    return printed(gp.main)


def pid_law(u, kp, ki, kd, T, tf, limits):
    """DiscretePID's outputs for the inputs u (k, 2) = [setpoint, measured], as its
    docstring writes the law (derivative from e_{-1} = e_0, conditional integration)."""
    integral, d, e_prev, out = 0.0, 0.0, None, []
    for setpoint, measured in u:
        e = setpoint - measured
        e_prev = e if e_prev is None else e_prev
        d = (tf * d + kd * (e - e_prev)) / (tf + T)
        raw = kp * e + integral + d
        y = min(max(raw, limits[0]), limits[1])
        if not ((raw > limits[1] and ki * e > 0) or (raw < limits[0] and ki * e < 0)):
            integral += ki * T * e
        e_prev = e
        out.append(y)
    return np.array(out)


def test_the_samples_are_at_exact_multiples_of_the_period(gearbox_pid):
    result, out = gearbox_pid
    samples = result.controller("pid")
    n = round(gp.T_END / gp.PERIOD) + 1
    assert len(samples) == n == result.stats["samples"]
    assert np.array_equal(samples.t, np.arange(n) * 1e-3)       # bit for bit, from t0 = 0
    assert f"{n} samples of the PID" in out and "every one at k T exactly: True" in out


def test_the_pid_is_its_law_of_the_sampled_angle_held_to_the_next_sample(gearbox_pid):
    """Its inputs are the setpoint and the load's angle at the instant (the row there, to
    1e-12 rad; measured 0: the piece's end and the row are the same state); its outputs its
    law of them (the same arithmetic: measured 0 difference, asserted 1e-13 N m); the
    motor's torque at every row the output of the last sample at or before it (zero-order
    hold, the new one from its instant on)."""
    result, _ = gearbox_pid
    samples = result.controller("pid")
    assert np.all(samples.u[:, 0] == gp.SETPOINT)
    rows = np.searchsorted(result.t, samples.t)
    assert np.array_equal(result.t[rows], samples.t)
    np.testing.assert_allclose(samples.u[:, 1], result.joint("load_shaft").q[rows], rtol=0,
                               atol=1e-12)
    y = pid_law(samples.u, gp.KP, gp.KI, gp.KD, gp.PERIOD, 0.0, gp.LIMITS)
    np.testing.assert_allclose(samples.y[:, 0], y, rtol=0, atol=1e-13)
    held = samples.y[np.searchsorted(samples.t, result.t, side="right") - 1, 0]
    np.testing.assert_array_equal(result.force("motor_torque").value, held)


def test_the_backlash_leaves_a_limit_cycle_that_does_not_decay(gearbox_pid):
    """In the second half of the run: tooth contacts begin on both flanks in every quarter
    second (measured 2 to 3 of each: one of each per 93 ms cycle), and the error's
    peak-to-peak, cycle by cycle, is flat: within 1 % of its mean (measured 0.4 %), its trend
    |d ln / dt| < 0.01 1/s (measured 0.002) where the loop without backlash decays at 3.5 1/s
    (test below); the amplitude is 0.57 mrad, 1e6 times the integration's tolerance."""
    result, out = gearbox_pid
    half = 0.5 * gp.T_END
    for start in np.arange(half, gp.T_END, 0.25):
        for flank in ("upper", "lower"):
            begins = [e for e in result.events if e.element == "backlash"
                      and start <= e.t < start + 0.25 and e.what == f"{flank} contact begins"]
            assert len(begins) >= 2, (start, flank)
    error = result.sensor("load_angle") - gp.SETPOINT
    ups, p2p = gp.cycles(result.t, error, half)
    assert len(p2p) >= 15
    assert np.abs(p2p / p2p.mean() - 1.0).max() < 0.01
    assert abs(np.polyfit(ups[:-1], np.log(p2p), 1)[0]) < 0.01
    assert 0.5e-3 < 0.5 * p2p.mean() < 0.65e-3
    assert "the limit cycle after t = 2 s" in out


def test_the_same_limit_cycle_grows_from_a_tiny_step(gearbox_pid):
    """A step of 1e-5 rad instead of 0.1 rad: the oscillation grows to the very cycle main()'s
    run shrinks to, its amplitude and period within 0.5 % (measured 0.09 % and 0.09 %): an
    attracting limit cycle, not a slow transient."""
    result, _ = gearbox_pid
    half = 0.5 * gp.T_END
    ups, p2p = gp.cycles(result.t, result.sensor("load_angle") - gp.SETPOINT, half)
    tiny = gp.build_model(setpoint=1e-5).build().simulate(
        gp.T_END, output_step=gp.OUTPUT_STEP, rtol=gp.RTOL, atol=gp.ATOL)
    ups2, p2p2 = gp.cycles(tiny.t, tiny.sensor("load_angle") - 1e-5, half)
    assert p2p2.mean() > 50 * 2e-5          # grown far beyond the step
    assert p2p2.mean() == pytest.approx(p2p.mean(), rel=5e-3)
    assert np.diff(ups2).mean() == pytest.approx(np.diff(ups).mean(), rel=5e-3)


def sampled_rigid_loop_rate():
    """The slowest rate (1/s) of the rigid, backlash-free loop sampled as the run samples it:
    the load's double integrator theta'' = T / (r J) (J the inertia reflected to the load)
    held over each period (exact zero-order-hold discretisation), the PID's law on the error
    e = -theta; state [theta, omega, I, e_prev]; ln(z) / T of its slowest root."""
    T = gp.PERIOD
    J = (gp.JM + gp.JP) / gp.RATIO ** 2 + gp.JL
    k = 1.0 / (gp.RATIO * J)
    u = np.array([-gp.KP - gp.KD / T, 0.0, 1.0, -gp.KD / T])  # u = kp e + I + kd (e - e_prev)/T
    M = np.zeros((4, 4))
    M[0] = np.array([1.0, T, 0.0, 0.0]) + k * T ** 2 / 2 * u
    M[1] = np.array([0.0, 1.0, 0.0, 0.0]) + k * T * u
    M[2] = [-gp.KI * T, 0.0, 1.0, 0.0]
    M[3] = [-1.0, 0.0, 0.0, 0.0]
    rates = np.log(np.linalg.eigvals(M).astype(complex)).real / T
    return rates.max()


def test_without_backlash_the_same_loop_settles_at_the_sampled_loops_rate():
    """The mesh a plain spring-damper (b = 0): no contact switches, and the error decays at
    the sampled rigid loop's slowest rate (-3.508 1/s) to 1e-3 (measured 3e-5: the mesh's
    compliance, 57 Hz, is what the rigid loop leaves out), down to 5e-8 rad at 4 s."""
    rate = sampled_rigid_loop_rate()
    assert rate == pytest.approx(-3.5084, abs=1e-4)
    result = gp.build_model(backlash=0.0).build().simulate(
        gp.T_END, output_step=gp.OUTPUT_STEP, rtol=gp.RTOL, atol=gp.ATOL)
    assert not result.events
    error = result.sensor("load_angle") - gp.SETPOINT
    late = result.t >= 2.0
    assert np.all(error[late] > 0)
    fitted = np.polyfit(result.t[late], np.log(error[late]), 1)[0]
    assert fitted == pytest.approx(rate, rel=1e-3)
    assert abs(error[-1]) < 1e-7


# ----------------------------------------------------------------------------- PD pendulum

def test_the_closed_form_solves_the_linearised_equation():
    """q_eq balances gravity and the P term (1e-15 N m), and the closed form is scipy's
    solution of J e'' + kd e' + (kp + m g l cos q_eq) e = 0 from rest at e = -q_eq (measured
    9e-15 rad; asserted 1e-11, the integration's tolerance)."""
    q_eq, k, _, zeta, _ = pd.linear_constants()
    assert abs(pd.KP * (pd.Q_REF - q_eq) - pd.M * pd.G * pd.L * np.sin(q_eq)) < 1e-14
    assert zeta == pytest.approx(0.2, abs=1e-3) and q_eq == pytest.approx(0.0803, abs=1e-4)
    t = np.linspace(0.0, pd.T_END, 401)
    sol = solve_ivp(lambda t, z: [z[1], -(pd.KD * z[1] + k * z[0]) / pd.J], (0.0, pd.T_END),
                    [-q_eq, 0.0], method="DOP853", rtol=1e-13, atol=1e-15, t_eval=t)
    np.testing.assert_allclose(pd.closed_form(t), q_eq + sol.y[0], rtol=0, atol=1e-11)


@pytest.fixture(scope="module")
def pd_run():
    return printed(pd.main)


def test_the_pd_pendulum_is_the_nonlinear_equation_under_the_gain(pd_run):
    """The run against scipy on J q'' = -m g l sin q - kp (q - q_ref) - kd q' (measured 8e-13
    rad, asserted 1e-9; the run's rtol is 1e-11); the torque at every row is the PD law of
    that row's angle and rate (round-off)."""
    (result, _, _), _ = pd_run
    sol = solve_ivp(lambda t, z: [z[1], (-pd.M * pd.G * pd.L * np.sin(z[0])
                                         - pd.KP * (z[0] - pd.Q_REF) - pd.KD * z[1]) / pd.J],
                    (0.0, pd.T_END), [0.0, 0.0], method="DOP853", rtol=1e-13, atol=1e-15,
                    dense_output=True)
    q, v = result.joint("hinge").q, result.joint("hinge").v
    np.testing.assert_allclose(q, sol.sol(result.t)[0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(result.force("motor").value,
                               -pd.KP * (q - pd.Q_REF) - pd.KD * v, rtol=0, atol=1e-13)


def test_the_pd_pendulum_meets_the_closed_form_within_the_nonlinear_bound(pd_run):
    """The run lies within the bound of gravity's nonlinear remainder (docstring: 3.5e-4 rad;
    measured 2.2e-5, the bound takes the remainder's peak for all time); with a setpoint ten
    times smaller the difference is a thousand times smaller (the remainder is cubic in the
    step: measured 1000.5, asserted 1000 +- 5 %)."""
    (result, diff, limit), out = pd_run
    q = result.sensor("angle")
    exact = pd.closed_form(result.t)
    assert diff == np.abs(q - exact).max()
    assert limit == pytest.approx(pd.bound(np.abs(q - pd.rest_angle()).max()))
    assert 1e-6 < diff <= limit < 4e-4
    small = pd.build_model(q_ref=0.1 * pd.Q_REF).build().simulate(
        pd.T_END, output_step=pd.OUTPUT_STEP, rtol=pd.RTOL, atol=pd.ATOL)
    diff_small = np.abs(small.sensor("angle") - pd.closed_form(small.t, 0.1 * pd.Q_REF)).max()
    assert diff / diff_small == pytest.approx(1000.0, rel=0.05)
    assert "largest difference" in out and f"{diff:.3e}" in out
