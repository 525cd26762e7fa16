"""The event log and exact switching (SPEC §3.2, §4): switches are logged in time order with the
element and what changed, output rows include every event time, a time-varying stiffness
switches exactly where it crosses K_min, chattering stops the run naming the element, and a run
without exact switching follows the same motion and logs its switches at step ends.
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mbd
from forces import JointForce, VariableRotationalSpring
from joints import Revolute

from .test_reference_examples import (
    GAP0,
    C,
    D,
    elastogap_model,
    lower_chain_exact,
    mass_motion,
    row,
    upper_chain_exact,
)

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

OUTPUT_STEP = 0.25


@pytest.fixture(scope="module")
def gap_system():
    return elastogap_model("axial").build()


@pytest.fixture(scope="module")
def gap_run(gap_system):
    return gap_system.simulate(5.0, output_step=OUTPUT_STEP, rtol=1e-10, atol=1e-10)


@pytest.fixture(scope="module")
def lower_exact():
    return lower_chain_exact(5.0)


def test_event_log_is_in_time_order_and_names_element_and_change(gap_run):
    events = gap_run.events
    assert len(events) == gap_run.stats["events"] == 12
    times = [e.t for e in events]
    assert times == sorted(times)
    assert all(0.0 < t < 5.0 for t in times)
    assert {e.element for e in events} == {"elastoGap1", "elastoGap2"}   # the springs never switch
    assert all(isinstance(e.what, str) and e.what for e in events)
    # each contact alternates begins/ends per gap, starting from gap2's initial contact
    for name, first in (("elastoGap1", "contact begins"), ("elastoGap2", "contact ends")):
        contact = [e.what for e in events if e.element == name and e.what.startswith("contact")]
        other = {"contact begins": "contact ends", "contact ends": "contact begins"}
        expected = [first]
        while len(expected) < len(contact):
            expected.append(other[expected[-1]])
        assert contact == expected


def test_rows_are_the_output_grid_plus_every_event_time(gap_run):
    t = gap_run.t
    assert np.all(np.diff(t) > 0.0)
    grid = OUTPUT_STEP * np.arange(int(round(5.0 / OUTPUT_STEP)) + 1)
    event_times = np.array([e.t for e in gap_run.events])
    # no event falls on the grid here, so the rows are exactly the union
    assert np.min(np.abs(event_times[:, None] - grid[None, :])) > 1e-6
    assert len(t) == len(grid) + len(event_times)
    for tg in grid:
        row(gap_run, tg)
    for te in event_times:
        assert np.count_nonzero(t == te) == 1      # the very time logged


def test_event_rows_lie_on_the_switching_surface(gap_run):
    """At each event row the state is where the branch changes (a contact edge or a damping
    clamp edge), and the element's state there is the new branch."""
    x1, v1, x2, v2 = mass_motion(gap_run)
    gaps = {"elastoGap1": (x2 + 2.0, v2), "elastoGap2": (2.0 - x2, -v2)}
    for e in gap_run.events:
        i = row(gap_run, e.t)
        s_rel, v_rel = gaps[e.element][0][i], gaps[e.element][1][i]
        fc = C * (s_rel - GAP0)
        surface = {"contact begins": s_rel - GAP0, "contact ends": s_rel - GAP0,
                   "damping clamped: the gap never pulls": D * v_rel + fc,
                   "damping below the spring force": D * v_rel - fc}[e.what]
        assert abs(surface) < 1e-9, e
        contact = gap_run.force(e.element).state["contact"]
        if e.what.startswith("contact"):
            assert contact[i] == (e.what == "contact begins"), e
            assert contact[i - 1] != contact[i] and contact[i + 1] == contact[i], e


def test_event_rows_are_continuous(gap_run, lower_exact):
    """The row at an event time is the one state both pieces share: it is the continuous
    solution there, and the neighbouring rows on either side match it too."""
    _, state = lower_exact
    x1, v1, x2, v2 = mass_motion(gap_run)
    for e in gap_run.events:
        i = row(gap_run, e.t)
        for j in (i - 1, i, i + 1):
            assert abs(x2[j] - state(gap_run.t[j])[0]) < 1e-8, (e, j)
            assert abs(v2[j] - state(gap_run.t[j])[1]) < 1e-8, (e, j)


# ---------------------------------------------------------------------------------------------
# VariableRotationalSpring: K(t) = 10 - 4 t crosses K_min = 2 at t = 2

J, K_MIN, THETA_INIT = 2.0, 2.0, 0.3


def stiffness(t):
    return 10.0 - 4.0 * t


def spring_rotor(K, theta0=0.1, name="vspring"):
    """An inertia J about z on a revolute joint, held by a variable rotational spring."""
    m = mbd.Model("variable_spring")
    ground = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    rotor = m.add_body("rotor", mass=1.0, cg=(0, 0, 0), inertia=[J, J, J])
    hinge = m.add(Revolute("hinge", ground, rotor["cg"], axis=(0, 0, 1), q0=theta0))
    m.add(JointForce(name, hinge, VariableRotationalSpring(K=K, K_min=K_MIN,
                                                           theta_init=THETA_INIT)))
    return m.build()


@pytest.fixture(scope="module")
def spring_run():
    return spring_rotor(stiffness).simulate(3.0, output_step=0.1, rtol=1e-10, atol=1e-10)


def test_variable_spring_switch_is_logged_at_the_crossing(spring_run):
    (event,) = spring_run.events
    assert event.element == "vspring"
    assert "K_min" in event.what and "in use" in event.what
    assert abs(event.t - 2.0) < 1e-9
    # a row at the event time, and the grid row t = 2 (the same row only if they coincide)
    assert event.t in spring_run.t and 2.0 in spring_run.t
    assert np.all(np.diff(spring_run.t) > 0.0)


def test_variable_spring_uses_K_min_below_it(spring_run):
    r = spring_run
    view = r.force("vspring")
    K_used = np.maximum(stiffness(r.t), K_MIN)
    np.testing.assert_allclose(view.state["K"], K_used, rtol=0, atol=1e-12)
    np.testing.assert_allclose(view.x, r.joint("hinge").q, rtol=0, atol=1e-15)
    np.testing.assert_allclose(view.value, -K_used * (THETA_INIT + view.x), rtol=0, atol=1e-12)
    after = r.t > 2.0 + 1e-9
    np.testing.assert_array_equal(view.state["K_min_active"][after], True)
    np.testing.assert_array_equal(view.state["K_min_active"][r.t < 2.0 - 1e-9], False)


def test_variable_spring_motion_matches_an_independent_integration(spring_run):
    """J theta'' = -max(K(t), K_min) (theta_init + theta), integrated by scipy in two smooth
    pieces split at the crossing t = 2."""
    def rhs(K):
        return lambda t, y: [y[1], -K(t) * (THETA_INIT + y[0]) / J]

    r = spring_run
    before, after = r.t <= 2.0, r.t > 2.0
    first = solve_ivp(rhs(stiffness), (0.0, 2.0), [0.1, 0.0], method="DOP853", rtol=1e-12,
                      atol=1e-12, dense_output=True)
    second = solve_ivp(rhs(lambda t: K_MIN), (2.0, 3.0), first.y[:, -1], method="DOP853",
                       rtol=1e-12, atol=1e-12, dense_output=True)
    exact = np.hstack([first.sol(r.t[before]), second.sol(r.t[after])])
    np.testing.assert_allclose(r.joint("hinge").q, exact[0], rtol=0, atol=1e-8)
    np.testing.assert_allclose(r.joint("hinge").v, exact[1], rtol=0, atol=1e-8)


# ---------------------------------------------------------------------------------------------
# Chattering

def oscillating_stiffness(omega):
    """K(t) = K_min + 1e-3 sin(omega t): it crosses K_min at every t = k pi / omega."""
    return lambda t: K_MIN + 1e-3 * np.sin(omega * t)


def test_resolved_fast_switching_is_not_chattering():
    """Crossings every 31 ms for a second: 31 switches, each located where K(t) = K_min,
    and the run completes (a step shorter than the spacing sees every crossing)."""
    omega = 100.0
    r = spring_rotor(oscillating_stiffness(omega)).simulate(1.0, output_step=0.1, rtol=1e-8,
                                                            atol=1e-8, max_step=0.01)
    k = np.arange(1, int(omega / np.pi) + 1)
    np.testing.assert_allclose([e.t for e in r.events], k * np.pi / omega, rtol=0, atol=1e-12)
    assert r.t[-1] == 1.0


def test_chattering_stops_the_run_naming_the_element():
    """K(t) crosses K_min every pi ps: the law switches 50 times within 1.6e-10 s while
    nothing moves. The run stops with a SimulationError naming the element and keeps the
    rows and events computed up to then (the step bound makes the integrator see each
    crossing, as a stiffness signal sampled that fast would be)."""
    omega = 1e12
    system = spring_rotor(oscillating_stiffness(omega), name="flicker")
    with pytest.raises(mbd.SimulationError) as info:
        system.simulate(1.0, output_step=0.1, rtol=1e-8, atol=1e-8, max_step=1e-12)
    err = info.value
    assert "'flicker'" in str(err) and "chatter" in str(err)
    r = err.result
    assert isinstance(r, mbd.Result)
    assert len(r.events) >= 50 and all(e.element == "flicker" for e in r.events)
    k = np.arange(1, len(r.events) + 1)
    np.testing.assert_allclose([e.t for e in r.events], k * np.pi / omega, rtol=0, atol=1e-15)
    assert err.t == r.events[-1].t < 1e-9
    # the rows: the start, and every event time, the last one included
    assert r.t[0] == 0.0 and r.t[-1] == err.t
    assert set(e.t for e in r.events) <= set(r.t)
    assert np.all(np.isfinite(r.q)) and np.all(np.isfinite(r.v))


# ---------------------------------------------------------------------------------------------
# exact_switching=False

def test_without_exact_switching_same_motion_switches_at_step_ends(gap_system, gap_run,
                                                                     lower_exact):
    """The plain ODE with kinks follows the same motion (to 1e-4 at rtol 1e-7: a step that
    straddles a kink has an error the embedded estimate does not see, so the error is not
    proportional to the tolerance), logs the same switches, each at the end of the step that
    crossed it: after the located time, with a row there showing the new branch."""
    events, state = lower_exact
    r = gap_system.simulate(5.0, output_step=OUTPUT_STEP, rtol=1e-7, atol=1e-7,
                            exact_switching=False)
    assert r.stats["exact_switching"] is False
    x1, v1, x2, v2 = mass_motion(r)
    exact = np.array([state(t) for t in r.t])
    assert np.max(np.abs(x2 - exact[:, 0])) < 1e-4
    assert np.max(np.abs(v2 - exact[:, 1])) < 1e-4
    # the smooth upper chain: a global error of ordinary size for the tolerance
    ex1, ev1 = upper_chain_exact(r.t)
    assert np.max(np.abs(x1 - ex1)) < 1e-5 and np.max(np.abs(v1 - ev1)) < 1e-5

    assert [(e.element, e.what) for e in r.events] == [(g, w) for _, g, w in events]
    lags = np.array([e.t for e in r.events]) - [t for t, _, _ in events]
    assert np.all(lags > 0.0) and np.all(lags < 0.5), lags
    assert np.all(np.diff([e.t for e in r.events]) >= 0.0)
    gaps = {"elastoGap1": x2 + 2.0, "elastoGap2": 2.0 - x2}
    for e in r.events:
        i = np.flatnonzero(r.t == e.t)
        assert len(i) == 1, e
        if e.what.startswith("contact"):
            inside = gaps[e.element][i[0]] < GAP0
            assert inside == (e.what == "contact begins"), e
            assert r.force(e.element).state["contact"][i[0]] == inside, e
    # the grid rows are all there besides
    for tg in OUTPUT_STEP * np.arange(21):
        row(r, tg)


def test_contact_intervals_are_the_logged_contact_events(gap_run):
    """ForceView.contacts() (from the per-row state) pairs each element's logged 'contact
    begins' with its 'contact ends', at the same exact times."""
    for name in ("elastoGap1", "elastoGap2"):
        begins = [e.t for e in gap_run.events if e.element == name and e.what == "contact begins"]
        ends = [e.t for e in gap_run.events if e.element == name and e.what == "contact ends"]
        assert begins and ends
        contacts = gap_run.force(name).contacts()
        starts = [t0 for t0, _, _ in contacts if t0 > gap_run.t[0]]
        assert starts == begins
        finished = [t1 for _, t1, _ in contacts if np.isfinite(t1)]
        assert finished == ends
        assert all(side == -1 for _, _, side in contacts)
