"""examples/gearbox.py shows what it claims (a shortened run, 0.3 s: three contacts).

* Its closed form is right: the relative angle and every contact's begin and end against a
  plain integration (scipy) of the one-coordinate equation x'' = a0 - (c / mu) max(x - b/2, 0)
  (it never reaches the lower flank), written out here; and the docstring's numbers follow
  from its parameters.
* Its run meets its closed form: the backlash's contacts at the closed-form times (1e-8 s),
  the motor and load angles (1e-8 rad), the gear's torque on the load (1e-6 N m), and its
  printout lists each contact's begin and end beside the closed form's.
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from tests.test_examples import load

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

gb = load("gearbox")
T_SHORT = 0.3


@pytest.fixture(scope="module")
def reference():
    """x(t) and the flank crossings (s) of x'' = a0 - (c / mu) max(x - b/2, 0) from rest."""
    def rhs(t, z):
        x, v = z
        return [v, gb.A0 - gb.C / gb.MU * max(x - 0.5 * gb.B, 0.0)]

    def flank(t, z):
        return z[0] - 0.5 * gb.B

    sol = solve_ivp(rhs, (0.0, T_SHORT), [0.0, 0.0], method="DOP853", rtol=1e-12, atol=1e-14,
                    dense_output=True, events=flank)
    return sol


def test_the_docstrings_numbers():
    """J_e = J_p + r^2 J_l = 0.065 kg m^2 (r = 0.2: a reduction of 5), mu = 1/(1/J_e + 1/J_m),
    a0 = r T_l / J_e."""
    assert gb.RATIO == 0.2 and gb.JE == pytest.approx(0.065, rel=1e-12)
    assert gb.MU == pytest.approx(0.065 * 0.02 / 0.085, rel=1e-12)
    assert gb.A0 == pytest.approx(0.6 / 0.065, rel=1e-12)


def test_the_closed_form_is_the_one_coordinate_equation(reference):
    t = np.linspace(0.0, T_SHORT, 601)
    np.testing.assert_allclose(gb.relative_angle(t), reference.sol(t)[0], rtol=0, atol=1e-10)
    crossings = reference.t_events[0]                  # begin, end, begin, ...
    expected = np.ravel(gb.contacts(T_SHORT))[:len(crossings)]
    assert len(crossings) == 6
    np.testing.assert_allclose(crossings, expected, rtol=0, atol=1e-10)


def test_the_run_meets_the_closed_form(capsys):
    result = gb.main(t_end=T_SHORT)
    out = capsys.readouterr().out
    contacts = gb.contacts(T_SHORT)
    assert len(contacts) == 3
    begins = [e.t for e in result.events
              if e.element == "backlash" and e.what == "upper contact begins"]
    ends = [e.t for e in result.events
            if e.element == "backlash" and e.what == "upper contact ends"]
    assert not [e for e in result.events if e.what.startswith("lower")]
    np.testing.assert_allclose(begins, [b for b, _ in contacts], rtol=0, atol=1e-8)
    np.testing.assert_allclose(ends, [e for _, e in contacts], rtol=0, atol=1e-8)
    # the printout: a row per contact, mbd's times beside the closed form's
    for k, ((b0, e0), b, e) in enumerate(zip(contacts, begins, ends)):
        assert f"{k + 1:>7}  {b:.10f} s  {b0:.10f} s  {e:.10f} s  {e0:.10f} s" in out
    assert "largest difference from the closed form: motor" in out

    q_m, q_l = gb.angles(result.t)
    np.testing.assert_allclose(result.joint("motor_shaft").q, q_m, rtol=0, atol=1e-8)
    np.testing.assert_allclose(result.joint("load_shaft").q, q_l, rtol=0, atol=1e-8)
    # the gear's torque on the load: J_l times its acceleration, less the load torque, with
    # q_p'' = (r T_l + J_m x'') / (J_m + J_e) and x'' from the piece the row is in
    x = gb.relative_angle(result.t)
    xdd = gb.A0 - gb.C / gb.MU * np.maximum(x - 0.5 * gb.B, 0.0)
    acc = gb.RATIO * (gb.RATIO * gb.T_LOAD + gb.JM * xdd) / (gb.JM + gb.JE)
    np.testing.assert_allclose(result.reaction("mesh").value, gb.JL * acc - gb.T_LOAD,
                               rtol=0, atol=1e-6)
