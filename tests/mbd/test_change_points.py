"""Closed loops through singular positions (issue 24): change points passed on the branch that
continuity selects, dead centres and undetermined starts still stopped with the message.

The windows of ``benchmarks/windows.py`` (IFToMM A02, "two four-bar mechanism", generalised to
N windows): every crank turns as one pendulum, ``I theta'' = -g c cos(theta)``, and whenever
theta passes a multiple of pi all links lie on the x-axis: the closures lose rank for an
instant (mobility 1 -> N + 1) while the motion itself is smooth. The reference is that
one-coordinate equation (scipy's DOP853 at rtol 1e-13).

Accuracy bounds at rtol = atol = 1e-10 over 20 s: an explicit integrator's global error on this
pendulum equation is itself about 1e-7 rad there (scipy's DOP853 on the one-coordinate
equation: 8.6e-8; mbd's DOP853 on a one-crank tree, no loop at all: 1.4e-7), so DOP853 and
"auto" are held to 3e-7 m and Radau, whose steps are shorter, to 1e-7 m. A jump to another
branch (a window folding) would be an error of order 1 m.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import mbd
from forces import Actuator, JointForce
from tests.mbd.test_loops import FourBarReference, fourbar

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from windows import crank_angle, windows_model  # noqa: E402

T_END = 20.0
BOUND = {"DOP853": 3e-7, "auto": 3e-7, "Radau": 1e-7}


def tip_error(result, n):
    """The largest distance (m) of any crank's tip from where the closed form puts it."""
    theta, _ = crank_angle(n, result.t)
    tip = np.c_[np.cos(theta), np.sin(theta)]
    return max(np.abs(result.body(f"crank{i}").position("tip")[:, :2] - (i, 0) - tip).max()
               for i in range(n + 1))


@pytest.mark.parametrize("method", ["DOP853", "Radau", "auto"])
@pytest.mark.parametrize("n", [2, 10])
def test_windows_pass_every_change_point_on_the_parallelogram_branch(n, method):
    system = windows_model(n).build()
    result = system.simulate(T_END, output_step=0.01, rtol=1e-10, atol=1e-10, method=method)
    assert result.t[-1] == T_END
    theta, _ = crank_angle(n, result.t)
    passages = np.count_nonzero(np.diff(np.floor(theta / np.pi)))
    assert passages >= 16, passages                       # dozens of change points ...
    assert tip_error(result, n) < BOUND[method]           # ... all passed on the branch
    # the windows stay parallelograms: every crank at the first one's angle
    for i in range(1, n + 1):
        np.testing.assert_allclose(result.joint(f"pivot{i}").q, result.joint("pivot0").q,
                                   rtol=0, atol=1e-8)
    energy = result.energy()
    assert np.abs(energy - energy[0]).max() < 5e-7 * np.abs(energy).max()


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
