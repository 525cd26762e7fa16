"""Closed loops through singular positions (issues 24 and 44): change points passed on the
branch that continuity selects, at any tolerance and with every method; dead centres and
undetermined starts still stopped with the message.

The windows of ``benchmarks/windows.py`` (IFToMM A02, "two four-bar mechanism", generalised to
N windows): every crank turns as one pendulum, ``I theta'' = -g c cos(theta)``, and whenever
theta passes a multiple of pi all links lie on the x-axis: the closures lose rank for an
instant (mobility 1 -> N + 1) while the motion itself is smooth. The reference is that
one-coordinate equation (scipy's DOP853 at rtol 1e-13).

The bounds come from the method and the reference, not from a figure measured once:

* the integrator's own global error on the same motion at the same tolerance: mbd's DOP853
  and Radau on ``pendulum_model(n)``, the one-coordinate equation as a one-body tree (no
  loop), run here; the larger of the two (a Radau run hands each change point to DOP853 to
  jump; "auto" runs either), times SAFETY = 10 (the windows' error control runs over 6 (2N + 1)
  coordinates, the pendulum's over 2);
* plus, per passage through a change point, one step that jumps it, held to its error estimate
  times 20 (``mbd.run.steppers.changepoints.JUMP_STRICTNESS``): its error in the energy is allowed
  KICK = 100 rtol (relative; an RMS norm over n entries lets one entry carry sqrt(n) times the
  share, and an estimate near the point may miss a few times more), which turns into a crank
  angle error of at most KICK times the angle's sensitivity to a relative energy change at the
  start (the closed form's, over the whole run);
* the energy, kinetic + gravity (no dissipation), kept to SAFETY times the pendulum's energy
  error plus KICK per passage.

A jump to another branch (a window folding) is an error of order 1 m, and the cranks then leave
the first one's angle, which is held to the same bound.
"""
import functools
import sys
from pathlib import Path

import numpy as np
import pytest

import mbd
from forces import Actuator, JointForce
from tests.mbd.run.test_loops import FourBarReference, fourbar

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from windows import crank_angle, inertia_and_moment, pendulum_model, windows_energy, windows_model  # noqa: E402

T_END = 20.0
SAFETY = 10.0
KICK = 100.0


def tip_error(result, n):
    """The largest distance (m) of any crank's tip from where the closed form puts it."""
    theta, _ = crank_angle(n, result.t)
    tip = np.c_[np.cos(theta), np.sin(theta)]
    return max(np.abs(result.body(f"crank{i}").position("tip")[:, :2] - (i, 0) - tip).max()
               for i in range(n + 1))


def energy_error(result):
    """The largest change of the energy from its start, relative to its largest value."""
    energy = result.energy()
    return np.abs(energy - energy[0]).max() / np.abs(energy).max()


@functools.lru_cache(maxsize=None)
def own_errors(n, rtol):
    """mbd's own (crank angle error, rad; energy error, relative) on the one-coordinate
    equation at rtol (atol = rtol / 100), the larger of DOP853's and Radau's."""
    system = pendulum_model(n).build()
    angle = energy = 0.0
    for method in ("DOP853", "Radau"):
        result = system.simulate(T_END, output_step=0.01, rtol=rtol, atol=rtol / 100,
                                 method=method)
        theta, _ = crank_angle(n, result.t)
        angle = max(angle, np.abs(result.joint("pivot0").q + 0.5 * np.pi - theta).max())
        energy = max(energy, energy_error(result))
    return angle, energy


@functools.lru_cache(maxsize=None)
def energy_sensitivity(n, share=1e-6):
    """The crank angle's largest change over the run (rad) per relative change of the
    energy at the start, from the closed form: the start speed raised so that the energy
    grows by ``share`` of its largest value."""
    inertia, _ = inertia_and_moment(n)
    t = np.linspace(0.0, T_END, 2001)
    theta, omega = crank_angle(n, t)
    energy = windows_energy(n, theta[0], omega[0])
    scale = np.abs(windows_energy(n, theta, omega)).max()
    speed = np.sqrt(omega[0] ** 2 + 2.0 * share * scale / inertia)
    raised, _ = crank_angle(n, t, tip_speed=speed)
    assert np.isclose(windows_energy(n, theta[0], -speed) - energy, share * scale)
    return np.abs(raised - theta).max() / share


RTOLS = [1e-6, 1e-8, 1e-10, 1e-12]
#: the matrix of issue 44: every N, tolerance and method
CASES = [(n, rtol, method) for n in (2, 10, 40, 80) for rtol in RTOLS
         for method in ("DOP853", "Radau", "auto")]


def _case(n, rtol, method):
    # the perturbed copies (tests/perturb.py) of the small models only: the large ones' copies
    # would add minutes to CI and test the same bound
    marks = [pytest.mark.accuracy] if n <= 10 else []
    return pytest.param(n, rtol, method, marks=marks, id=f"{n}-{rtol:.0e}-{method}")


@pytest.mark.parametrize("n, rtol, method", [_case(*case) for case in CASES])
def test_windows_pass_every_change_point_on_the_parallelogram_branch(n, rtol, method):
    system = windows_model(n).build()
    result = system.simulate(T_END, output_step=0.01, rtol=rtol, atol=rtol / 100,
                             method=method)
    assert result.t[-1] == T_END                          # no stop
    theta, _ = crank_angle(n, result.t)
    passages = np.count_nonzero(np.diff(np.floor(theta / np.pi)))
    assert passages >= 16, passages                       # dozens of change points ...
    angle, energy = own_errors(n, rtol)
    bound = SAFETY * angle + passages * KICK * rtol * energy_sensitivity(n)
    assert tip_error(result, n) < bound                   # ... all passed on the branch
    # the windows stay parallelograms: every crank at the first one's angle, to within what
    # the projection of every row onto the closures leaves (1e-12 of the length scale,
    # mbd.run.evaluator.Evaluator), here allowed 1e4 times that: a fold moves a
    # crank by order 1 rad
    closure = 1e4 * 1e-12 * system.length_scale
    for i in range(1, n + 1):
        np.testing.assert_allclose(result.joint(f"pivot{i}").q, result.joint("pivot0").q,
                                   rtol=0, atol=closure)
    assert energy_error(result) < SAFETY * energy + passages * KICK * rtol


@pytest.mark.parametrize("atol", [1e-10, 1e-12])
def test_the_issue_s_forty_windows_at_rtol_1e_10_run_to_the_end(atol):
    """Issue 44's cases, with the default method: at rtol = atol = 1e-10 the run stopped at
    t = 15.0 s with a false "singular configuration", at atol 1e-12 its steps collapsed and it
    stopped at 7.14 s. Both run the 20 s, within the matrix's bound at rtol 1e-10."""
    n, rtol = 40, 1e-10
    system = windows_model(n).build()
    result = system.simulate(T_END, output_step=0.01, rtol=rtol, atol=atol)
    assert result.t[-1] == T_END
    theta, _ = crank_angle(n, result.t)
    passages = np.count_nonzero(np.diff(np.floor(theta / np.pi)))
    angle, energy = own_errors(n, rtol)
    assert tip_error(result, n) < SAFETY * angle + passages * KICK * rtol * energy_sensitivity(n)
    assert energy_error(result) < SAFETY * energy + passages * KICK * rtol


@pytest.mark.parametrize("theta0", [0.0, np.pi])
@pytest.mark.parametrize("n", [2, 40])
def test_windows_released_at_rest_at_a_change_point_stop_saying_so(n, theta0):
    """Released at rest with every link on the x-axis, the windows may fall as parallelograms
    or fold: the motion is not determined, and the run stops with the message, which says what
    the ranks mean: n equations at the start (one per window lost), 2 n once moving (two per
    planar window, the cut joints' own coordinates aside)."""
    system = windows_model(n, theta0=theta0, tip_speed=0.0).build()
    with pytest.raises(mbd.SimulationError, match="singular configuration") as info:
        system.simulate(2.0, output_step=0.01, rtol=1e-10, atol=1e-10)
    message = str(info.value)
    assert "gained rank" in message and "not determined" in message, message
    assert f"rank {n} on the tree's coordinates" in message, message
    assert f"rank {2 * n} (the new equation" in message, message
    assert "'right0'" in message and "'pivot1'" in message
    assert 0.0 < info.value.t < 0.1
    result = info.value.result
    assert result.t[-1] <= info.value.t and len(result.t) >= 2


def test_a_crank_rocker_passes_its_toggle_positions_at_speed():
    """The test_loops crank-rocker turning at speed, driven by a torque on its rocker (an
    Actuator, so the rocker side's dead centres are passed on the crank's inertia): at each
    toggle position the crank and coupler are collinear and the rocker reverses. Every one is
    passed; the crank angle follows the one-coordinate solution with the actuator's work."""
    torque = 0.5

    def motor(joints):
        return JointForce("motor", joints["j4"], Actuator(lambda t: torque))

    system = fourbar(crank=dict(q0=0.0, v0=6.0, exact=True), forces=[motor])
    result = system.simulate(6.0, output_step=0.002, rtol=1e-10, atol=1e-10)
    assert result.t[-1] == 6.0
    rocker_rate = result.joint("j4").v
    toggles = np.flatnonzero(np.diff(np.sign(rocker_rate)) != 0)
    assert len(toggles) >= 10, len(toggles)
    # at each reversal (to within an output step) the crank and the coupler lie on one line
    reference = FourBarReference()
    j2 = result.joint("j2").q[toggles]
    collinear = np.abs(np.sin(j2 + reference.alpha0[1] - reference.alpha0[0]))
    within_a_step = np.abs(result.joint("j2").v[toggles]) * 0.002
    assert np.all(collinear < within_a_step), (collinear, within_a_step)
    # the one-coordinate solution with the rocker torque: Lagrange's theta'' plus the torque's
    # generalized force, torque times d j4 / d theta = -d alpha_3 / d theta
    from scipy.integrate import solve_ivp

    def rhs(t, y):
        m = reference.terms(y[0])[0]
        arm = -reference.rates(reference.angles(y[0]))[0][2]
        return [y[1], reference.rhs(t, y)[1] + torque * arm / m]

    sol = solve_ivp(rhs, (0.0, 6.0), [0.0, 6.0], method="DOP853", rtol=1e-12, atol=1e-12,
                    t_eval=result.t)
    np.testing.assert_allclose(result.joint("j1").q, sol.y[0], rtol=0, atol=1e-6)


# ----------------------------------------------------------------------------- the jump's size


def test_the_widest_gap_between_a_method_s_nodes():
    """DOP853's nodes (its stages and its dense output's) leave the widest gap between 1/3 and
    0.6 (Hairer's c_6 and c_10); Radau IIA's between (4 - sqrt 6) / 10 and (4 + sqrt 6) / 10."""
    from mbd.run.steppers import changepoints, dop853, radau
    np.testing.assert_allclose(dop853.GAP, [(1 / 3 + 0.6) / 2, (0.6 - 1 / 3) / 2], rtol=1e-15)
    root6 = np.sqrt(6.0)
    np.testing.assert_allclose(radau.GAP, [0.4, root6 / 10], rtol=1e-15)
    np.testing.assert_allclose(changepoints.widest_gap([0.2, 0.3]), [0.65, 0.35])


@pytest.mark.parametrize("retry", [False, True])
def test_a_step_puts_the_change_point_in_the_gap_or_stops_short_of_it(retry):
    from mbd.run.steppers.changepoints import GROWTH, place
    gap = np.array([0.5, 0.25])
    h, tiny = 0.1, 1e-12
    longest = h if retry else GROWTH * h
    # none expected, one behind, one beyond this step and the next one's jump: the control's
    assert place(-np.inf, 1.0, h, tiny, gap, retry) == h
    assert place(0.9, 1.0, h, tiny, gap, retry) == h
    assert place(1.0 + 1.6 * longest, 1.0, h, tiny, gap, retry) == h
    # within reach: a step with t* in the gap's middle
    x = 0.4 * longest
    assert np.isclose(place(1.0 + x, 1.0, h, tiny, gap, retry), x / 0.5)
    assert np.isclose(place(1.0 + 0.01, 1.0, h, tiny, gap, retry), 0.02)
    # beyond it: a step that ends the gap's share of h short of t*, for the next one to jump
    x = 0.5 * longest + 0.3 * h
    assert np.isclose(place(1.0 + x, 1.0, h, tiny, gap, retry), x - 0.5 * h)
    # a step below the smallest one the integrator may take: the control's
    assert place(1.0 + 1e-13, 1.0, h, 1e-12, gap, retry) == h
