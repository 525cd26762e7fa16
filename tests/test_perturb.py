"""The --perturb plugin (tests/perturb.py): its perturbation reaches the run at the stated
amounts, is deterministic, and makes a bound tuned to one machine's figure fail."""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mbd
from forces import JointForce, SpringDamper
from joints import Prismatic, Revolute
from tests import perturb

ROOT = pathlib.Path(__file__).resolve().parent.parent
RTOL, ATOL = 1e-8, 1e-10


def double_pendulum():
    """Two links on revolutes about y, started off the vertical and moving: every entry of
    q and v is non-zero."""
    m = mbd.Model("double")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    a = m.add_body("a", mass=1.0, cg=(0.5, 0.0, 0.0), inertia=np.diag([1e-3, 0.1, 0.1]),
                   cs={"p": (0.0, 0.0, 0.0), "tip": (1.0, 0.0, 0.0)})
    b = m.add_body("b", mass=0.5, cg=(1.5, 0.0, 0.0), inertia=np.diag([1e-3, 0.05, 0.05]),
                   cs={"p": (1.0, 0.0, 0.0)})
    m.add(Revolute("j1", g, a["p"], axis=(0, 1, 0), q0=0.3, v0=-0.7))
    m.add(Revolute("j2", a["tip"], b["p"], axis=(0, 1, 0), q0=-0.2, v0=1.1))
    return m.build()


@pytest.mark.accuracy
def test_the_perturbation_reaches_the_run_at_the_stated_amounts(perturbation):
    """Plain copy: the run starts at the joints' values with the given tolerances. Perturbed
    copy: every start entry moved by 0.5..1 x 1e-13 relative, rtol and atol by exactly
    +-10 %, in simulate and in a live Simulation alike."""
    system = double_pendulum()
    start = system.initial_state()
    y0 = np.concatenate([start.q, start.v])
    assert np.all(y0 != 0.0)
    result = system.simulate(0.01, output_step=0.01, rtol=RTOL, atol=ATOL)
    live = mbd.Simulation(system, rtol=RTOL, atol=ATOL)
    for rtol, atol, y in ((result.stats["rtol"], result.stats["atol"],
                           np.concatenate([result.q[0], result.v[0]])),
                          (live.run.settings.rtol, live.run.settings.atol,
                           np.concatenate([live.state.q, live.state.v]))):
        if perturbation is None:
            assert (rtol, atol) == (RTOL, ATOL)
            np.testing.assert_array_equal(y, y0)
            continue
        for value, given in ((rtol, RTOL), (atol, ATOL)):
            assert abs(value / given - 1.0) == pytest.approx(perturb.TOLERANCE_LEVEL,
                                                             rel=1e-12)
        moved = np.abs(y / y0 - 1.0)
        # 0.5..1 x STATE_LEVEL, each bound widened by the round-off of y / y0 (2 eps)
        eps2 = 2.0 * np.finfo(float).eps
        assert np.all(moved >= 0.5 * perturb.STATE_LEVEL - eps2), moved
        assert np.all(moved <= perturb.STATE_LEVEL + eps2), moved
    if perturbation is not None:
        assert len(perturbation.applied) == 2       # the two runs, each perturbed once


def test_the_draws_are_deterministic_and_the_salt_and_the_test_change_them():
    y = np.array([0.3, -0.2, 0.0, 1.1, 0.0])

    def draws(name, salt):
        p = perturb.Perturbation(name, salt)
        return p.tolerances(1e-8, 1e-10), p.state(y, 4), p.state(y[:3], 3)

    first = draws("tests/x.py::test_a", 0)
    again = draws("tests/x.py::test_a", 0)
    assert first[0] == again[0]
    for a, b in zip(first[1:], again[1:]):
        np.testing.assert_array_equal(a, b)
    # every run of a test gets the same factors, entry by entry, whatever its length
    np.testing.assert_array_equal(first[2], first[1][:3])
    assert first[1][2] == 0.0 and first[1][4] == 0.0   # a zero stays (entry 2); v beyond n=4
    factors = [perturb.Perturbation("tests/x.py::test_a", salt).factors(50)
               for salt in range(2)] + [perturb.Perturbation("tests/x.py::test_b", 0).factors(50)]
    assert not np.array_equal(factors[0], factors[1])
    assert not np.array_equal(factors[0], factors[2])
    # both signs drawn, the sizes within 0.5..1 x STATE_LEVEL
    moved = factors[0] - 1.0
    assert moved.min() < 0.0 < moved.max()
    assert np.all((np.abs(moved) >= 0.49 * perturb.STATE_LEVEL)
                  & (np.abs(moved) <= 1.01 * perturb.STATE_LEVEL))


# ---------------------------------------------------------------- a bound tuned to one machine

OSC = dict(m=2.0, c=50.0, x0=0.3, t=3.0, rtol=1e-6, atol=1e-9)


def oscillator_error(r=None):
    """max |x - x_exact| over the rows of an undamped oscillator (mass m on a spring c along
    a Prismatic, from x0 at rest) at rtol 1e-6: x_exact = x0 cos(sqrt(c/m) t); ``r`` its
    run, made here when None."""
    r = oscillator_run() if r is None else r
    exact = OSC["x0"] * np.cos(np.sqrt(OSC["c"] / OSC["m"]) * r.t)
    return float(np.max(np.abs(r.joint("rail").q - exact)))


def oscillator_run():
    """The oscillator of :func:`oscillator_error`, simulated."""
    m = mbd.Model("osc")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    block = m.add_body("block", mass=OSC["m"], cg=(0.0, 0.0, 0.0),
                       inertia=np.diag([0.01, 0.02, 0.03]), cs={"o": (0.0, 0.0, 0.0)})
    rail = m.add(Prismatic("rail", g, block["o"], axis=(1, 0, 0), q0=OSC["x0"], v0=0.0))
    m.add(JointForce("spring", rail, SpringDamper(c=OSC["c"], d=0.0, x0=0.0)))
    return m.simulate(OSC["t"], output_step=0.01, rtol=OSC["rtol"], atol=OSC["atol"])


SUITE = '''
import numpy as np
import pytest
from tests.test_perturb import OSC, oscillator_error, oscillator_run

pytestmark = pytest.mark.accuracy


@pytest.fixture(scope="module")
def module_run():
    return oscillator_run()


def test_a_module_fixture_runs_perturbed_in_the_perturbed_copy(module_run, perturbation):
    factor = module_run.stats["rtol"] / OSC["rtol"]
    if perturbation is None:
        assert factor == 1.0
    else:
        assert abs(factor - 1.0) == pytest.approx(0.1, rel=1e-9)
    assert oscillator_error(module_run) <= 10.0 * OSC["rtol"] * OSC["x0"]


def test_tuned_to_this_machine():
    # the figure one machine measured, recorded as the expected value (as a step count of
    # 1000 or a residual of 0.0 was): whichever way another machine moves it, this fails
    assert abs(oscillator_error() - {measured!r}) <= 1e-6 * {measured!r}


def test_bound_from_the_method():
    # DOP853's global error on this problem is of the order of rtol x amplitude; ten
    # times that is the bound
    assert oscillator_error() <= 10.0 * OSC["rtol"] * OSC["x0"]


def test_print_the_draws(perturbation):
    oscillator_error()
    if perturbation is not None:
        print("DRAWS", repr([(a["rtol"][1], a["atol"][1], a["y"][1][:2].tolist())
                             for a in perturbation.applied]))
'''


def run_pytest(folder, *args, ci=None):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "tests.perturb",
                           "-p", "no:cacheprovider", "-p", "no:randomly", *args],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


def test_a_bound_tuned_to_one_machine_fails_under_perturb_and_one_from_the_method_holds(
        tmp_path):
    measured = oscillator_error()
    assert 0.0 < measured <= 10.0 * OSC["rtol"] * OSC["x0"]
    (tmp_path / "test_tuned.py").write_text(textwrap.dedent(SUITE.format(measured=measured)))
    code, out = run_pytest(tmp_path)
    assert code == 0 and "4 passed" in out, out
    code, out = run_pytest(tmp_path, "--perturb")
    assert code == 1, out
    assert "1 failed, 7 passed" in out, out
    assert "FAILED test_tuned.py[perturbed]::test_tuned_to_this_machine" in out, out
    draws = [line for line in out.splitlines() if "DRAWS" in line]
    # CI set: the same perturbed copies, with the same draws; another salt, other draws
    code, again = run_pytest(tmp_path, ci="true")
    assert code == 1 and "1 failed, 7 passed" in again, again
    assert [line for line in again.splitlines() if "DRAWS" in line] == draws != []
    code, salted = run_pytest(tmp_path, "--perturb", "--perturb-salt", "7")
    salted_draws = [line for line in salted.splitlines() if "DRAWS" in line]
    assert salted_draws and salted_draws != draws, salted


def test_hypothesis_runs_derandomized_under_ci():
    from hypothesis import settings
    ci = settings.get_profile("ci")
    assert ci.derandomize and ci.print_blob and ci.deadline is None
    if os.environ.get("CI"):
        assert settings.default.derandomize
