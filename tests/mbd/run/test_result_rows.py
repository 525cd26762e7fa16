"""A result's rows in one compiled loop (mbd.compiled.rowkernels): the force elements' records
and the joints' reactions equal, to the bit, the same kernels evaluated row by row from Python
(the way a single row is evaluated), for every kind of row input: laws that are Python
functions of time, prescribed motion drivers, closed loops, sticking stiction locks and held
signals (the last two stay row by row where they need Python)."""
import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

from mbd.compiled import layout
from mbd.run import evaluatorrows
from mbd.run.result import Result
from mbd.run.userfunctions import UserFunctionError

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "examples"))


def _example(name):
    return importlib.import_module(name)


def _runs():
    """(name, result) of runs whose rows need each kind of input."""
    from mbd.cli import demo
    yield "demo: K(t) a Python function", demo.build_model().build().simulate(
        1.0, output_step=2e-3, rtol=1e-9, atol=1e-9)
    from .test_reactions import slider_crank
    yield "slider-crank: a prescribed motion driver, a loop", slider_crank(True).build() \
        .simulate(0.5, output_step=5e-3, rtol=1e-10, atol=1e-10)
    stick = _example("stick_slip")
    yield "stick-slip: a lock that sticks", stick.build_model().build().simulate(
        2.0, output_step=5e-3, rtol=1e-9, atol=1e-9)
    pid = _example("gearbox_pid")
    yield "gearbox PID: held signals", pid.build_model().build().simulate(
        0.5, output_step=5e-3, rtol=1e-8, atol=1e-8)


RUNS = dict(_runs())


def fresh(result):
    """A Result of the same rows with nothing worked out yet."""
    return Result(result.system, result.t, result.state_rows(), events=result.events,
                  stats=result.stats, sides=result.sides, controls=result.controls)


def records_row_by_row(result):
    """Every row's records by :meth:`mbd.run.evaluator.Evaluator.records`, one row at a time."""
    r = fresh(result)
    sd, Y = r.evaluation.evaluator, r.state_rows()
    out = layout.records(layout.ELEMENT_STATE, (len(r.t), len(r.system.force_elements)))
    for k, t in enumerate(r.t):
        sd.records(t, Y[k], r.sides[k], out=out[k])
    return out


def reactions_row_by_row(result):
    """Every row's joint loads, constraint forces and accelerations from Python, row by
    row."""
    r = fresh(result)
    s, sd, Y = r.system, r.evaluation.evaluator, r.state_rows()
    n, nl = len(r.t), s.n_links
    names = list(s.joints)
    first = np.array([s.joints[name].links[0] for name in names], dtype=np.int64)
    loads, lam = np.zeros((n, len(names), 6)), np.zeros((n, s.n_rows))
    acc, R, p = np.zeros((n, nl, 6)), np.zeros((n, nl, 3, 3)), np.zeros((n, nl, 3))
    evaluatorrows._reaction_rows_from_python(sd, r.t, Y, r.sides, first, loads, lam, acc, R, p, True,
                                  True)
    return evaluatorrows._wrenches(s, names, loads, lam, R, p), evaluatorrows._driver_values(s, lam), acc


@pytest.mark.parametrize("name", list(RUNS))
def test_records_of_every_row_at_once_equal_row_by_row(name):
    result = RUNS[name]
    if not result.system.force_elements:
        pytest.fail(f"{name}: the case must have force elements")
    got = fresh(result).evaluation.force_records()
    want = records_row_by_row(result)
    assert len(got) == len(result.t) > 50
    for field in layout.ELEMENT_STATE.names:
        np.testing.assert_array_equal(got[field], want[field], err_msg=f"{name}: {field}")


@pytest.mark.parametrize("name", list(RUNS))
def test_reactions_of_every_row_at_once_equal_row_by_row(name):
    result = RUNS[name]
    r = fresh(result)
    wrenches, drivers, acc, status = r.evaluation.evaluator.reaction_rows(r.t, r.state_rows(), r.sides,
                                                      accelerations=True)
    want_wrenches, want_drivers, want_acc = reactions_row_by_row(result)
    assert status == 0
    assert set(wrenches) == set(want_wrenches) == set(result.system.joints)
    for joint, (force, moment) in wrenches.items():
        np.testing.assert_array_equal(force, want_wrenches[joint][0], err_msg=joint)
        np.testing.assert_array_equal(moment, want_wrenches[joint][1], err_msg=joint)
    assert set(drivers) == set(want_drivers)
    for driver, value in drivers.items():
        np.testing.assert_array_equal(value, want_drivers[driver], err_msg=driver)
    np.testing.assert_array_equal(acc, want_acc)


def test_the_cases_have_what_they_are_named_for():
    """Each case exercises its kind of row input (else the equalities above prove less)."""
    demo = RUNS["demo: K(t) a Python function"]
    assert fresh(demo).evaluation.evaluator.varying
    crank = RUNS["slider-crank: a prescribed motion driver, a loop"]
    assert crank.system.drivers and crank.system.cut_joints
    assert np.abs(crank.reaction("motor").value).max() > 1.0
    stick = RUNS["stick-slip: a lock that sticks"]
    assert stick.system.locks
    index = stick.system.locks[0]
    stuck = stick.sides[:, index, 1] < 0.0
    assert stuck.any() and not stuck.all()
    assert RUNS["gearbox PID: held signals"].controls is not None


def test_a_python_function_that_fails_at_a_row_is_named():
    """A law's K(t) that raises at some row's time: reading the result names the element,
    its function and the time (as a run does), not a bare exception."""
    def stiffness(t):
        if t > 0.3:
            raise ValueError("no data past 0.3 s")
        return 5.0

    system = _spring_arm(stiffness)
    result = system.simulate(0.3, output_step=0.01)
    late = Result(system, result.t + 0.05, result.state_rows(), sides=result.sides)
    with pytest.raises(UserFunctionError) as info:
        _ = late.force("spring").value
    assert "spring" in info.value.element and info.value.t > 0.3


def _spring_arm(stiffness):
    """A pendulum held by a VariableRotationalSpring of stiffness K(t) = ``stiffness``."""
    import mbd
    from forces import JointForce, VariableRotationalSpring
    from joints import Revolute
    m = mbd.Model("arm")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = m.add_body("arm", 1.0, (0.5, 0, 0), np.diag([1e-3, .02, .02]),
                     cs={"pivot": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.3))
    m.add(JointForce("spring", hinge, VariableRotationalSpring(K=stiffness, K_min=2.0)))
    return m.build()


def test_a_function_of_time_that_takes_arrays_is_called_once_for_all_rows():
    """K(t) written with numpy answers for all the rows' times in one call (and a check call
    at each of ROW_CHECKS times), not once a row; the records are those of the row-by-row
    evaluation, to the bit."""
    from mbd.model import values
    calls = []

    def stiffness(t):
        calls.append(np.size(t))
        return 6.0 + 5.0 * np.sin(2.0 * np.pi * t)

    system = _spring_arm(stiffness)
    result = system.simulate(1.0, output_step=1e-3)
    calls.clear()
    r = fresh(result)
    got = r.evaluation.force_records()
    assert calls.count(len(r.t)) == 1 and calls.count(1) <= values.ROW_CHECKS
    assert len(calls) <= 1 + values.ROW_CHECKS
    want = records_row_by_row(result)
    for field in layout.ELEMENT_STATE.names:
        np.testing.assert_array_equal(got[field], want[field], err_msg=field)
    # and the value is the law's: -K(t) (q - 0) on the hinge, K above K_min
    q = result.joint("hinge").q
    K = 6.0 + 5.0 * np.sin(2.0 * np.pi * result.t)
    above = K > 2.0
    np.testing.assert_allclose(r.force("spring").value[above], -(K * q)[above], rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("stiffness, why", [
    (lambda t: 5.0 + 0.0 * np.atleast_1d(t)[0] + np.zeros_like(t) + np.atleast_1d(t)[0],
     "answers an array with its first time's value everywhere"),
    (lambda t: max(5.0 + t, 5.0), "raises for an array"),
    (lambda t: 5.0 + np.mean(t), "answers one number for an array"),
    (lambda t: np.where(np.asarray(t) > 0.5, np.nan, 5.0 + t) if np.ndim(t) else 5.0 + t,
     "answers NaN for an array"),
])
def test_a_function_wrong_for_arrays_is_read_row_by_row(stiffness, why):
    """A K(t) written for one number, which for an array raises, answers another shape, NaN,
    or values that its calls of one time do not give: the records are still those of the row
    by row evaluation (the one-call answer is checked, and dropped)."""
    from mbd.model import values
    law = _spring_arm(stiffness).force_elements[0].law
    T = np.linspace(0.0, 1.0, 101)
    assert values.returned_rows(stiffness, T) is None, why
    assert law.parameter_rows(T) is None, why
    result = _spring_arm(stiffness).simulate(1.0, output_step=1e-2)
    got = fresh(result).evaluation.force_records()
    want = records_row_by_row(result)
    for field in layout.ELEMENT_STATE.names:
        np.testing.assert_array_equal(got[field], want[field], err_msg=f"{why}: {field}")
    np.testing.assert_array_equal(got["value"][:, 0],
                                  -(5.0 + result.t) * result.joint("hinge").q)


def test_returned_rows_takes_an_answer_only_where_it_is_checked():
    from mbd.model import values
    T = np.linspace(0.0, 2.0, 1001)
    np.testing.assert_array_equal(values.returned_rows(np.cos, T), np.cos(T))
    assert values.returned_rows(np.cos, T[:2 * values.ROW_CHECKS]) is None   # too few rows
    assert values.returned_rows(lambda t: np.ones(len(t) + 1), T) is None    # another shape
    assert values.returned_rows(lambda t: np.full(np.shape(t), "5"), T) is None  # not numbers
    # right at the checked times only: a function must agree at every checked time
    checked = np.unique(np.linspace(0, len(T) - 1, values.ROW_CHECKS).round().astype(int))
    wrong = np.cos(T)
    wrong[checked[1]] += 1.0
    assert values.returned_rows(lambda t: wrong if np.ndim(t) else np.cos(t), T) is None
