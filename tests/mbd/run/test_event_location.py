"""Double crossings inside one step: a switching function that leaves its side and comes back
within what would otherwise be one integrator step shows the same sign at both of the step's
ends. The steppers screen every armed function on its values and rates at the step's ends
(:func:`mbd.compiled.events.turning`), look for the lowest point of a suspect one on the step's
dense output (:func:`mbd.compiled.events.departure`), and the run locates the first crossing
as an event — in the compiled DOP853 and Radau loops and in scipy's solvers alike.
"""
import numpy as np
import pytest

import mbd
from forces import Impact, JointForce, Spring
from joints import Prismatic
from mbd.compiled import events

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

#: a 1 kg block on a spring of OMEGA^2 N/m released at rest from x = A (m): x = A cos(OMEGA t)
A, OMEGA = 0.1, 1.0
#: a stop at x1 = -A (1 - GRAZE), just inside the motion's reach: the block grazes it for
#: 2 arccos(1 - GRAZE) / OMEGA = 2.8 ms, where the steps at these tolerances are 20 to 100
#: times longer
GRAZE = 1e-6
#: the stop's stiffness (N/m^1.5): at the graze's depth A GRAZE its force is ~3e-11 N, which
#: leaves the free motion (and so the closed-form times) unchanged far below the tolerances
K_STOP = 1.0


def grazing_block():
    """The block on its spring and the stop it grazes (an Impact on the slide)."""
    model = mbd.Model("graze")
    ground = model.add_ground("ground", at=(0.0, 0.0, 0.0),
                              environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    block = model.add_body("block", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=[1.0, 1.0, 1.0])
    slide = model.add(Prismatic("slide", ground, block["cg"], axis=(1.0, 0.0, 0.0), q0=A))
    model.add(JointForce("spring", slide, Spring(c=OMEGA ** 2)))
    model.add(JointForce("stop", slide, Impact(x1=-A * (1.0 - GRAZE), k=K_STOP, e=1.5,
                                               cmax=0.0, d=1e-3)))
    return model


@pytest.fixture(scope="module")
def grazing_system():
    return grazing_block().build()


#: (method, compiled): both compiled loops, and scipy's solvers stepped from Python
PATHS = [("DOP853", True), ("Radau", True), ("DOP853", False), ("RK45", False),
         ("Radau", False), ("BDF", False)]


@pytest.mark.parametrize("method, compiled", PATHS, ids=lambda p: str(p))
def test_a_graze_inside_one_step_is_found_at_the_closed_form_times(grazing_system, method,
                                                                   compiled):
    """The contact begins where A cos(OMEGA t) reaches x1 and ends where it leaves it again:
    (pi -+ arccos(1 - GRAZE)) / OMEGA, to 1e-5 s (the graze lasts 2.8 ms; the entry speed is
    A sqrt(2 GRAZE) = 1.4e-4 m/s, so a position error of 1e-9 m moves a time by 7e-6 s)."""
    result = grazing_system.simulate(t_end=4.0, output_step=1.0, rtol=1e-10, atol=1e-12,
                                     method=method, compiled=compiled)
    assert result.stats["stepper"] == ("compiled" if compiled else "scipy")
    # the steps are longer than the graze: the signs at their ends miss it (measured: the
    # code before this search logged no event here with the compiled DOP853 and Radau and
    # scipy's DOP853, Radau and BDF; RK45's shorter steps happen to end inside it)
    assert 4.0 / result.stats["nsteps"] > 2 * 2 * np.arccos(1.0 - GRAZE) / OMEGA
    assert [(e.element, e.what) for e in result.events] == [
        ("stop", "lower stop contact begins"), ("stop", "lower stop contact ends")]
    half = np.arccos(1.0 - GRAZE) / OMEGA
    t_in, t_out = (e.t for e in result.events)
    assert t_in == pytest.approx(np.pi / OMEGA - half, abs=1e-5)
    assert t_out == pytest.approx(np.pi / OMEGA + half, abs=1e-5)
    # the contact's row lies past the stop (the new branch starts strictly inside it), and
    # the stop only ever pushes
    x = result.joint("slide").q
    assert x[result.t == t_in][0] < -A * (1.0 - GRAZE)
    assert np.all(result.force("stop").value >= 0.0)


def test_departure_finds_a_narrow_dip_away_from_the_guess_and_no_near_miss():
    """The search on a step's dense output, run as Python: a dip 0.02 of the step wide, far
    from the cubic's guess, is found (a time off the side, inside the dip); a dip that stops
    short of the boundary by 2 % of its depth is not."""
    def dip(depth):
        return lambda t: -1.0 + depth * np.exp(-((t - 0.63) / 0.01) ** 2)

    t_off = events.lowest(dip(1.02), 0.0, 1.0, -1.0, 0.2)
    assert dip(1.02)(t_off) >= 0.0 and abs(t_off - 0.63) < 0.02
    assert np.isnan(events.lowest(dip(0.98), 0.0, 1.0, -1.0, 0.2))


def test_turning_suspects_a_turn_near_the_boundary_only():
    """The screen: a function on its - side at both ends of a 0.1 s step that rose at 30 /s
    and falls at 30 /s has a cubic peak at -0.25, within RATE_NEAR of its 0.75 rise from zero
    (suspect, lowest of -g halfway); risen at 3 /s it peaks at -0.925 (not); one that rises
    steadily, or rests, never is."""
    assert events.turning.py_func(-1.0, 30.0, -1.0, -30.0, 0.1, -1.0) == 0.5
    assert events.turning.py_func(-1.0, 3.0, -1.0, -3.0, 0.1, -1.0) == -1.0
    assert events.turning.py_func(-1.0, 5.0, -0.5, 5.0, 0.1, -1.0) == -1.0
    assert events.turning.py_func(-1.0, 0.0, -1.0, 0.0, 0.1, -1.0) == -1.0


def _switches_element_by_element(before, after, armed_before, armed_after):
    """real_switches' rule (its docstring) one element at a time, as it was written before
    it took whole arrays."""
    changed = before != after
    out = []
    for i in range(before.shape[0]):
        ks = np.nonzero(armed_before[i] & armed_after[i] & changed[i])[0]
        if not len(ks) and (np.any(armed_before[i] != armed_after[i])
                            or np.any(armed_before[i] & changed[i])):
            ks = np.nonzero(armed_before[i] & changed[i])[0]
            if not len(ks):
                ks = np.nonzero(armed_after[i] & changed[i])[0]
        out += [(i, int(k)) for k in ks]
    return out


def test_the_switches_logged_are_those_of_the_rule_element_by_element():
    # every combination of sides and armed masks that random draws reach, on small modes
    rng = np.random.default_rng(7)
    for _ in range(5000):
        n = int(rng.integers(1, 6))
        before = rng.choice([-1.0, 1.0], (n, 5))
        after = np.where(rng.random((n, 5)) < 0.3, -before, before)
        armed_before, armed_after = rng.random((n, 5)) < 0.5, rng.random((n, 5)) < 0.5
        assert (events.real_switches(before, after, armed_before, armed_after)
                == _switches_element_by_element(before, after, armed_before, armed_after))
