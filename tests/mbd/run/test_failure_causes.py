"""Issue 45, "the newcomer's list": run failures and input checks that must name their cause,
each walked as a user met it.

- A Table with extrapolate="error" used past its breakpoints, as an Actuator's value (the run
  said "the step size fell below 10 units of round-off") and in a Lookup (in-process, and
  inside an FMU run by FMPy: "its output must be 1 finite number(s), got [nan]"): the table,
  the value asked, its range and the time are named, and the rows computed are kept.
- A stiffness or an input orders of magnitude too large (ElastoBacklash c = 1e20 N m/rad, an
  Actuator of 1e250 N m): the element that dominates the acceleration, the parameter and the
  switch the steps collapsed after are named.
- ``mbd run examples/pendulum.py`` past its step budget: not "stiff" (h |lambda| far inside
  DOP853's stability limit), but a run that needs more than max_steps, and how to raise it;
  the CLI's sentences end with one full stop.
- A body of mass 0 with a rotational inertia is refused at build(), naming it, unless made
  weightless on purpose.
"""
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate

import mbd
from forces import Actuator, ElastoBacklash, JointForce
from joints import Revolute
from mbd.run import diagnosis

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "mbd", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def arm(model, q0=0.2, gravity=(0.0, 0.0, -9.81)):
    """A 1 kg arm (CG 0.5 m out) on a hinge about y; returns the hinge."""
    g = model.add_ground("ground", environment=mbd.Environment(gravity=gravity))
    b = model.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                       cs={"pivot": (0, 0, 0)})
    return model.add(Revolute("hinge", g, b["pivot"], axis=(0, 1, 0), q0=q0))


def failure(system, t_end, **options):
    with pytest.raises(mbd.SimulationError) as caught:
        system.simulate(t_end, **options)
    return caught.value


# ------------------------------------------------------------------ tables past their range


@pytest.mark.parametrize("method", ["DOP853", "Radau"])
def test_an_actuators_table_past_its_breakpoints_names_the_table_value_range_and_time(method):
    """The torque is a Table of time over [0, 0.5] s with extrapolate="error", the run asked
    to 1 s: the message names the element, the table, the value asked past 0.5 and the range,
    at t = 0.5 s (DOP853 said "the step size fell below 10 units of round-off" there: the
    rates were probed only 16 ulp ahead, short of its last step), and the rows up to there are
    kept."""
    model = mbd.Model("p")
    hinge = arm(model)
    curve = mbd.Table([0.0, 0.5], [0.0, 1.0], extrapolate="error", name="torque_curve")
    model.add(JointForce("motor", hinge, Actuator(curve)))
    err = failure(model.build(), 1.0, output_step=0.01, method=method)
    message = str(err)
    assert message.startswith("JointForce 'motor': ")
    assert "at t = 0.5 s" in message
    found = re.search(r"Table 'torque_curve': (\S+) is outside its breakpoints \[0\.0, 0\.5\] "
                      r"\(extrapolate='error'\)", message)
    assert found, message
    asked = float(found.group(1))
    assert 0.5 < asked < 0.5 + 1e-12       # just past the end, where the run stopped
    assert "step size fell below" not in message
    rows = err.result.t
    # every output row up to where it stopped (0.49 s, or 0.5 s where a step ended there)
    assert 0.49 - 1e-12 <= rows[-1] <= err.t and np.all(np.diff(rows) > 0)
    assert len(rows) == int(round(rows[-1] / 0.01)) + 1
    assert np.all(np.isfinite(err.result.joint("hinge").q))


def lookup_model():
    """A spring whose torque is a Lookup of the hinge angle, tabulated over [-0.5, 0.5] rad
    only (extrapolate="error"); the arm falls from 0 rad under gravity and leaves the range."""
    m = mbd.Model("scheduled")
    hinge = arm(m, q0=0.0)
    m.add(mbd.Sensor("angle", "hinge.q"))
    table = mbd.Table([-0.5, 0.5], [1.0, -1.0], extrapolate="error", name="k_of_angle")
    law = m.add(mbd.Lookup("k", table, "angle"))
    m.add(JointForce("spring", hinge, Actuator(law)))
    m.add(JointForce("motor", hinge, Actuator(m.add(mbd.Input("torque", unit="N.m")))))
    m.add(mbd.Sensor("angle_out", "hinge.q"))
    return m


LOOKUP_MESSAGE = (r"Lookup 'k' at t = (\S+) s: its output must be 1 finite number\(s\), got "
                  r"\[nan\]: Table 'k_of_angle': (\S+) is outside its breakpoints \[-0\.5, 0\.5\] "
                  r"\(extrapolate='error'\); the value is its input angle")


def test_a_lookup_past_its_table_names_the_table_value_range_input_and_time():
    err = failure(lookup_model().build(), 1.0, output_step=0.01)
    found = re.search(LOOKUP_MESSAGE, str(err))
    assert found, str(err)
    t, asked = float(found.group(1)), float(found.group(2))
    assert t == pytest.approx(err.t) and abs(asked) > 0.5
    # the rows kept: every output time up to the last step taken (the failed one was tried
    # from there), inside the table, and as the arm moves under gravity and the tabulated
    # torque -2 q: I q'' = m g l cos q - 2 q, I = 0.02 + 1 kg (0.5 m)^2 about the hinge
    T, q = err.result.t, err.result.joint("hinge").q
    assert T[-1] <= err.t and len(T) == int(round(T[-1] / 0.01)) + 1 and T[-1] >= 0.2
    assert np.all(np.abs(q) <= 0.5) and q[-1] > 0.3

    def f(t, z):
        return [z[1], (9.81 * 0.5 * np.cos(z[0]) - 2.0 * z[0]) / 0.27]
    ref = integrate.solve_ivp(f, (0.0, T[-1]), [0.0, 0.0], t_eval=T, rtol=1e-11, atol=1e-12)
    # the run's rtol = 1e-8 (the default) over a few dozen steps: 100 rtol on a 0.5 rad angle
    np.testing.assert_allclose(q, ref.y[0], atol=100 * 1e-8 * 0.5)


PLANT = '''
import sys
sys.path.insert(0, {tests!r})
from mbd_lookup_past_table import lookup_model as build_model
'''


def test_a_lookup_past_its_table_inside_an_fmu_names_it_in_the_log(tmp_path):
    """The same model exported as an FMU and run by FMPy: the step fails with an error
    status and the log carries the named cause, not "got [nan]" alone."""
    from fmpy import simulate_fmu
    from fmpy.fmi1 import FMICallException
    module = tmp_path / "mbd_lookup_past_table.py"
    source = Path(__file__).read_text()
    # the model's builder and what it needs, as a module of its own the FMU's script imports
    module.write_text("import numpy as np\nimport mbd\nfrom forces import Actuator, "
                      "JointForce\nfrom joints import Revolute\n\n"
                      + source[source.index("def arm("):source.index("def failure(")]
                      + source[source.index("def lookup_model("):source.index("LOOKUP_MESSAGE")])
    script = tmp_path / "scheduled.py"
    script.write_text(PLANT.format(tests=str(tmp_path)))
    path = mbd.export_fmu(script, tmp_path / "scheduled.fmu")
    messages = []

    def logger(environment, status, category, message):
        messages.append(message.decode() if isinstance(message, bytes) else str(message))

    with pytest.raises(FMICallException):
        simulate_fmu(path, stop_time=1.0, output_interval=0.01, output=["angle_out"],
                     logger=logger)
    text = "\n".join(messages)
    found = re.search(LOOKUP_MESSAGE, text)
    assert found, text
    assert abs(float(found.group(2))) > 0.5


# ------------------------------------------------------------------ a value far out of scale


def test_an_input_of_1e250_is_named_as_what_dominates_the_acceleration():
    model = mbd.Model("p")
    hinge = arm(model, gravity=(0.0, 0.0, 0.0))
    model.add(JointForce("motor", hinge, Actuator(1e250)))
    err = failure(model.build(), 1.0, output_step=0.01)
    message = str(err)
    assert message.startswith("the integrator DOP853 failed at t = 0 s: the step size fell "
                              "below 10 units of round-off")
    # the arm's inertia about the hinge: 0.02 + 1 kg (0.5 m)^2
    accel = 1e250 / (0.02 + 0.25)
    found = re.search(r"the force of JointForce 'motor' dominates the acceleration: it gives "
                      r"(\S+) of the (\S+) rad/s\^2 of joint 'hinge' v, set by its value = "
                      r"1e\+250 N\.m \(Actuator\(value=1e\+250\)\)", message)
    assert found, message
    assert float(found.group(1)) == pytest.approx(accel, rel=1e-3)   # printed to 3 digits
    assert "a singular mass matrix" not in message
    assert len(err.result.t) == 1 and err.result.t[0] == 0.0      # the row it had is kept


def test_an_input_signal_of_1e250_is_named_as_what_dominates_the_acceleration():
    """The same torque given as an mbd.Input (an FMU's master, a live simulation set it):
    its value is held by the run, not a law parameter; the element and its input are named."""
    model = mbd.Model("p")
    hinge = arm(model, gravity=(0.0, 0.0, 0.0))
    torque = model.add(mbd.Input("torque", value=1e250, unit="N.m"))
    model.add(JointForce("motor", hinge, Actuator(torque)))
    message = str(failure(model.build(), 1.0, output_step=0.01))
    found = re.search(r"the force of JointForce 'motor' dominates the acceleration: it gives "
                      r"(\S+) of the (\S+) rad/s\^2 of joint 'hinge' v, set by Actuator\(value="
                      r".*torque", message)
    assert found, message
    assert float(found.group(1)) == pytest.approx(1e250 / 0.27, rel=1e-3)


def test_a_contact_stiffness_of_1e20_collapsing_the_steps_after_contact_is_named():
    """The gearbox example with its backlash's c = 1e20 N m/rad: the steps collapse just
    after a contact begins; the message names that switch, the element and its c."""
    proc = cli("run", str(EXAMPLES / "gearbox.py"), "--set", "backlash.c=1e20",
               "--out", "out", cwd=None)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    message = proc.stderr
    found = re.search(r"At t = (\S+) s, (\S+) s after RotationalForce 'backlash' switched "
                      r"\((upper|lower) contact begins\), the force of RotationalForce "
                      r"'backlash' dominates the acceleration: .* set by its c = 1e\+20 "
                      r"N\.m/rad \(ElastoBacklash\(c=1e\+20,", message)
    assert found, message
    assert 0.0 < float(found.group(2)) < 1e-6
    assert "rows computed were written to" in message


def test_a_stiff_contact_sets_the_fast_mode_with_its_force_frozen_at_rate_zero():
    """A flywheel (J = 5 kg m^2) resting in an ElastoBacklash contact with c = 1e20 N m/rad:
    the fast mode sqrt(c / J) = 4.47e9 rad/s is the contact's, and with its force frozen
    nothing else moves the wheel (rate 0). The diagnosis froze the law's parameters but kept
    calling the ElastoBacklash kernel: it reported a made-up rate, and for the backlash
    example "no single force element sets it"."""
    model = mbd.Model("lash")
    fixed = model.add_ground("fixed", environment=mbd.Environment(gravity=(0, 0, 0)))
    wheel = model.add_body("wheel", mass=1.0, cg=(0, 0, 0), inertia=[5.0, 5.0, 5.0])
    hinge = model.add(Revolute("hinge", fixed, wheel["cg"], axis=(0, 0, 1), q0=np.pi / 2))
    model.add(JointForce("lash", hinge, ElastoBacklash(c=1e20, d=50.0, b=np.pi / 4)))
    err = failure(model.build(), 0.1, output_step=0.005)
    message = str(err)
    rate = np.sqrt(1e20 / 5.0)
    assert f"an oscillating mode of {rate:.3g} rad/s" in message
    assert ("JointForce 'lash' (ElastoBacklash(c=1e+20, d=50.0, b=0.7853981633974483, "
            "phi_rel0=0.0)) sets it: with that element's force frozen the rate is 0 1/s"
            in message)


# ------------------------------------------------------------------ a long run is not stiff


def test_stability_boundaries_are_the_methods_own():
    """On the negative real axis the regions end where |R(-r)| = 1: checked against the
    stability polynomial summed from scipy's tableau by an independent route (powers of A:
    R(z) = 1 + sum_k z^(k+1) b^T A^k 1, exact for an explicit method), and the published
    values (Hairer & Wanner: DOP853 about 6, RK45 3.3, RK23 2.5)."""
    for method, published in ((integrate.DOP853, 6.0), (integrate.RK45, 3.3),
                              (integrate.RK23, 2.5)):
        r = diagnosis.stability_boundary(method)
        n = method.n_stages
        A = np.zeros((n, n))
        tableau = np.asarray(method.A)
        A[:, :min(n, tableau.shape[1])] = tableau[:n, :n]
        b = np.asarray(method.B)[:n]

        def R(z, n=n, A=A, b=b):
            term, total = np.ones(n), 1.0
            for k in range(n):
                total += z ** (k + 1) * (b @ term)
                term = A @ term
            return total
        assert abs(R(-r)) == pytest.approx(1.0, abs=1e-4)
        assert all(abs(R(-x)) <= 1.0 + 1e-12 for x in np.linspace(0.01, r - 1e-5, 400))
        assert abs(R(-r - 1e-4)) > 1.0
        assert r == pytest.approx(published, rel=0.08)
    assert diagnosis.stability_boundary(integrate.Radau) is None


def test_the_pendulum_past_its_step_budget_is_a_long_run_not_a_stiff_model(tmp_path):
    """``mbd run examples/pendulum.py`` with a budget it cannot finish in (300 steps for 50 s
    at rtol 1e-12: about 1100 needed): the message says the model is not stiff (h |lambda|
    about 0.14, far below a quarter of DOP853's boundary), names max_steps, its value, how far
    the run got, what it needs and how to raise it; its sentences end with one full stop.
    The rerun with the budget it advises finishes."""
    proc = cli("run", str(EXAMPLES / "pendulum.py"), "--t-end", "50", "--max-steps", "300",
               "--out", str(tmp_path))
    assert proc.returncode == 2
    message = proc.stderr
    assert message.startswith("mbd run: the simulation failed: the run took its max_steps = "
                              "300 steps and reached only t = ")
    found = re.search(r"The model is not stiff: the step resolves its fastest mode, an "
                      r"oscillating mode of \S+ rad/s \(period (\S+) s\), .* with h \|lambda\| "
                      r"= (\S+), well inside DOP853's stability limit of 6\.39 \(stiff from "
                      r"1\.6\)", message)
    assert found, message
    period, h_lam = float(found.group(1)), float(found.group(2))
    assert 2.0 < period < 2.5          # the large swing's: 2.01 s small-angle, 1.18 x that
    assert h_lam < diagnosis.STIFF_SHARE * diagnosis.stability_boundary(integrate.DOP853)
    assert "The model is stiff" not in message
    wanted = re.search(r"raise max_steps \(now 300\) to about (\d+): simulate\(\.\.\., "
                       r"max_steps=N\), or mbd run --max-steps N", message)
    assert wanted, message
    assert ".." not in message.replace("(...,", "") and "). the" not in message
    csv = tmp_path / "pendulum.csv"
    assert f"to {csv}" in message and ". The " in message
    assert message.rstrip().endswith(".png.")
    again = cli("run", str(EXAMPLES / "pendulum.py"), "--t-end", "50", "--max-steps",
                wanted.group(1), "--out", str(tmp_path))
    assert again.returncode == 0, again.stderr
    assert "simulated 50 s" in again.stdout


# ------------------------------------------------------------------ a mass of 0 with inertia


def rotor(weightless=False, mass=0.0):
    model = mbd.Model("wheel")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    b = model.add_body("rotor", mass=mass, cg=(0.5, 0, 0), inertia=[0.1, 0.2, 0.2],
                       cs={"pivot": (0, 0, 0)}, weightless=weightless)
    hinge = model.add(Revolute("hinge", g, b["pivot"], axis=(0, 1, 0)))
    model.add(JointForce("motor", hinge, Actuator(1.0)))
    return model


def test_a_body_of_mass_0_with_inertia_is_refused_naming_it():
    with pytest.raises(mbd.ModelError, match=r"body 'rotor': mass is 0 but its inertia is not "
                       r"\(principal moments \[0\.1, 0\.2, 0\.2\] kg m\^2\): a body without "
                       r"mass has no inertia; give its mass, or inertia 0 for a massless "
                       r"frame, or add_body\(\.\.\., weightless=True\)"):
        rotor().build()


def test_a_weightless_rotor_turns_as_its_inertia_alone_says():
    """Made weightless on purpose it builds: no weight pulls its CG 0.5 m out, and 1 N m
    turns it as q = t^2 / (2 I_yy), I_yy = 0.2 kg m^2 about its own CG (no m d^2)."""
    result = rotor(weightless=True).build().simulate(1.0, output_step=0.1, rtol=1e-10,
                                                     atol=1e-12)
    np.testing.assert_allclose(result.joint("hinge").q, result.t ** 2 / (2 * 0.2), atol=1e-9)


def test_massless_frames_without_inertia_still_build():
    """A massless, inertia-less link between two hinges (a universal joint's cross) is a
    frame, as before: it builds and carries the bob."""
    model = mbd.Model("cross")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    cross = model.add_body("cross", mass=0.0, cg=(0, 0, 0), inertia=[0.0, 0.0, 0.0],
                           cs={"o": (0, 0, 0)})
    bob = model.add_body("bob", mass=1.0, cg=(0, 0, -1), inertia=[0.01, 0.01, 0.01],
                         cs={"o": (0, 0, 0)})
    model.add(Revolute("outer", g, cross["o"], axis=(1, 0, 0), q0=0.1))
    model.add(Revolute("inner", cross["o"], bob["o"], axis=(0, 1, 0)))
    system = model.build()
    assert system.dof == 2
