"""examples/stick_slip.py shows what it claims, against closed forms written out here (not
the example's own, which solves for the slip phase's end numerically).

* The block breaks free every time k X reaches f_s, first at f_s/(k v_b); each slip phase
  lasts (pi + 2 atan2(v_b/w, (f_s - f_k)/k))/w and ends at X = (2 f_k - f_s)/k, where it
  sticks; each stuck phase lasts 2 (f_s - f_k)/(k v_b). The numbers in its docstring are
  these.
* Its printout lists exactly those events, each within 1e-9 s of the closed form, and the
  energy balance; friction's work is -f_k times the distance slid on the belt.
* ``mbd run`` past the first break writes the event's row.
"""
import contextlib
import io

import numpy as np
import pytest

from tests.test_examples import EXAMPLES, load

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

ss = load("stick_slip")

T_SHORT = 1.5           # s: two full cycles and the start of a third
W = np.sqrt(ss.K / ss.MASS)
#: the phases' durations and the stick position, in closed form
T_FIRST = ss.F_STATIC / (ss.K * ss.V_BELT)
T_SLIP = (np.pi + 2.0 * np.arctan2(ss.V_BELT / W, (ss.F_STATIC - ss.F_KINETIC) / ss.K)) / W
T_STUCK = 2.0 * (ss.F_STATIC - ss.F_KINETIC) / (ss.K * ss.V_BELT)
X_STICK = (2.0 * ss.F_KINETIC - ss.F_STATIC) / ss.K
X_BREAK = ss.F_STATIC / ss.K


def slip_x(tau):
    """X (m) tau s into a slip phase: the spring and f_k from rest relative to the belt at
    X_BREAK, moving at v_b."""
    return ss.F_KINETIC / ss.K + (X_BREAK - ss.F_KINETIC / ss.K) * np.cos(W * tau) + \
        ss.V_BELT / W * np.sin(W * tau)


def expected_events(t_end):
    """[(t, what)] of the breaks and sticks up to t_end."""
    out, t = [], T_FIRST
    while t <= t_end:
        out.append((t, "breaks free: slips backwards (-)"))
        t += T_SLIP
        if t > t_end:
            break
        out.append((t, "sticks"))
        t += T_STUCK
    return out


@pytest.fixture(scope="module")
def printed():
    """(result, printout) of the example's main(), shortened to T_SHORT."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ss.main(t_end=T_SHORT)
    return result, out.getvalue()


def test_the_docstring_numbers_are_the_closed_form():
    doc = ss.__doc__
    assert f"t = f_s / (k v_b) = {T_FIRST:.2f} s" in doc
    assert f"= {T_SLIP:.4f} s" in doc
    assert f"X = (2 f_k - f_s)/k = {1e3 * X_STICK:.0f} mm" in doc
    assert f"|2 f_k - f_s| = {abs(2 * ss.F_KINETIC - ss.F_STATIC):.0f} N < f_s" in doc
    assert f"2 (f_s - f_k)/(k v_b) = {T_STUCK:.2f} s" in doc
    assert f"period {T_SLIP + T_STUCK:.4f} s" in doc
    # the example's own closed form (brentq on X') is this one
    mine = expected_events(ss.T_END)
    theirs = ss.closed_form(ss.T_END)
    assert [w for _, w in mine] == [w for _, w, _ in theirs]
    np.testing.assert_allclose([t for t, _, _ in theirs], [t for t, _ in mine], rtol=0,
                               atol=1e-13)
    np.testing.assert_allclose([x for _, _, x in theirs],
                               [X_BREAK if w.startswith("breaks") else X_STICK for _, w in mine],
                               rtol=0, atol=1e-14)


def test_the_run_sticks_and_slips_at_the_closed_form_times(printed):
    result, _ = printed
    expected = expected_events(T_SHORT)
    assert len(expected) == 5
    assert [(e.element, e.what) for e in result.events] == [("friction", w) for _, w in expected]
    np.testing.assert_allclose([e.t for e in result.events], [t for t, _ in expected], rtol=0,
                               atol=1e-9)                   # measured 4.7e-12
    x = result.body("block").position("cg")[:, 0]
    friction = result.force("friction")
    for event, (_, what) in zip(result.events, expected):
        row = np.flatnonzero(result.t == event.t)[0]
        # an event's row is in the new mode: slipping (f_k forwards), or stuck holding k X
        if what == "sticks":
            assert x[row] == pytest.approx(X_STICK, abs=1e-9)
            assert friction.value[row] == pytest.approx(ss.K * X_STICK, abs=1e-7)
            assert friction.state["mode"][row] == "stuck"
        else:
            assert x[row] == pytest.approx(X_BREAK, abs=1e-9)
            assert friction.value[row] == ss.F_KINETIC
            assert friction.state["mode"][row] == "slipping"
    # within the second slip phase, the analytic motion
    t0 = expected[2][0]
    inside = (result.t > t0) & (result.t < expected[3][0])
    np.testing.assert_allclose(x[inside], slip_x(result.t[inside] - t0), rtol=0, atol=1e-9)


def test_the_printout_lists_the_events_and_the_energy_balance(printed):
    result, out = printed
    lines = out.splitlines()
    assert lines[0] == "5 events (5 in the closed form)"
    assert sum("breaks free: slips backwards (-)" in line for line in lines) == 3
    assert sum(" sticks " in line for line in lines) == 2
    assert "(closed form:" not in out                     # no event differs in kind
    worst = float(out.split("from the closed form: ")[1].split()[0])
    assert worst < 1e-9
    assert "largest residual" in out and "belt_drive: work" in out
    eb = result.energy_balance()
    assert eb.relative_residual < 1e-9                      # measured 1e-11
    # friction's work: -f_k times the slip on the belt, v_b T_slip + (X_BREAK - X_STICK)
    # per full slip phase, v_b tau - (X(tau) - X_BREAK) into the last one
    tau = T_SHORT - expected_events(T_SHORT)[-1][0]
    slid = 2 * (ss.V_BELT * T_SLIP + X_BREAK - X_STICK) + ss.V_BELT * tau - \
        (slip_x(tau) - X_BREAK)
    assert eb.work["friction"][-1] == pytest.approx(-ss.F_KINETIC * slid, abs=1e-8)


def test_mbd_run_past_the_first_break_writes_the_event_row(tmp_path, capsys):
    from mbd import cli
    assert cli.main(["run", str(EXAMPLES / "stick_slip.py"), "--t-end", "0.5", "--out",
                     str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "events: 1" in out and "friction: breaks free: slips backwards (-)" in out
    csv = tmp_path / "stick_slip.csv"
    header = csv.read_text().splitlines()[0].split(",")
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    t = data[:, 0]
    assert np.any(np.abs(t - T_FIRST) < 1e-12) and t[-1] == pytest.approx(0.5, abs=1e-12)
    # the grid's rows (written as its decimals, k / 200) and the event's: the break comes at
    # T_FIRST = 0.08 s, itself a grid instant, so the located instant may be the grid's very
    # double (one row) or a few ulps off it (a row of its own) as round-off has it
    grid = np.arange(round(0.5 / ss.OUTPUT_STEP) + 1) * ss.OUTPUT_STEP
    grid = np.round(grid, 12)
    assert np.isin(grid, t).all()
    extra = t[~np.isin(t, grid)]
    assert len(t) == len(grid) + len(extra) and len(extra) <= 1
    assert np.all(np.abs(extra - T_FIRST) < 1e-12)
    # stuck until the break: the slip on the belt stays zero
    slip = data[:, header.index("contact.q")]
    np.testing.assert_allclose(slip[t < T_FIRST], 0.0, atol=1e-12)
    assert slip[-1] < -0.1
