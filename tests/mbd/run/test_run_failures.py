"""Runs that cannot succeed fail fast, with the right cause and the rows computed so far.

Each case of issue 12 runs as the issue describes it: a stiff model (a 1e-6 kg slider on a
1e12 N/m spring), a run that blows up (a BodySpringDamper with b = -1e6 on a 1e-3 kg body),
Python functions of the model that raise or return what they must not, tolerances finer than
double precision, and settings that would take days. "Fast" is asserted deterministically:
by the steps taken before the failure (a hundredth of the step budget, see
``Run.check_budget``), not by a wall clock.
"""
import warnings

import numpy as np
import pytest

import mbd
from forces import Actuator, BodySpringDamper, JointForce, Spring, VariableRotationalSpring
from joints import Prismatic, Revolute, SixDof
from mbd.model.values import RTOL_MIN
from mbd.run.pieceloop import Run
from mbd.run.settings import MAX_STEPS

#: the most steps a run takes before the projected budget check can fail it
FAST = MAX_STEPS // 100 + Run.BATCH

K_STIFF, M_TINY, G = 1e12, 1e-6, 9.81


def stiff_slider(q0):
    """A 1e-6 kg slider on a 1e12 N/m spring along gravity: a 1e9 rad/s mode."""
    model = mbd.Model("stiff")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -G)))
    slider = model.add_body("slider", mass=M_TINY, cg=(0, 0, 0), inertia=np.eye(3) * 1e-12,
                            cs={"o": (0, 0, 0)})
    rail = model.add(Prismatic("rail", ground, slider["o"], axis=(0, 0, 1), q0=q0))
    model.add(JointForce("spring", rail, Spring(c=K_STIFF)))
    return model.build()


def pendulum(extra=None):
    """A 1 kg, 0.5 m pendulum on a hinge; ``extra(model, hinge)`` adds to it."""
    model = mbd.Model("pendulum")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -G)))
    arm = model.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, 0.1, 0.1]),
                         cs={"pivot": (0, 0, 0)})
    hinge = model.add(Revolute("hinge", ground, arm["pivot"], axis=(0, 1, 0), q0=0.3))
    if extra is not None:
        extra(model, hinge)
    return model.build()


def blow_up():
    """A 1e-3 kg body on a BodySpringDamper with b = -1e6 N s/m: a +1e9 1/s mode."""
    model = mbd.Model("blowup")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -G)))
    anchor = model.add_ground("anchor", at=(0, 0, 1))
    bob = model.add_body("bob", mass=1e-3, cg=(0, 0, 0), inertia=np.eye(3) * 1e-6,
                         cs={"o": (0, 0, 0)})
    model.add(SixDof("free", ground, bob["o"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # "b < 0 pumps energy into the system"
        model.add(BodySpringDamper("sd", anchor, bob["o"], k=10.0, b=-1e6, r0=0.5))
    return model.build()


def failure(system, t_end, **options):
    with pytest.raises(mbd.SimulationError) as caught:
        system.simulate(t_end, **options)
    err = caught.value
    assert err.result is not None and len(err.result.t) >= 1     # the rows computed so far
    assert err.result.t[-1] <= err.t
    return err


PATHS = [pytest.param(None, id="compiled"), pytest.param(False, id="scipy")]


# ----------------------------------------------------------------------------- stiff, slow


@pytest.mark.parametrize("compiled", PATHS)
def test_a_stiff_model_fails_fast_naming_its_element_and_advising_radau(compiled):
    err = failure(stiff_slider(0.0), 1.0, compiled=compiled)
    message = str(err)
    assert "cannot finish within max_steps = 1000000" in message
    assert "The model is stiff: its fastest mode sets the step" in message
    assert "an oscillating mode of 1e+09 rad/s" in message
    assert "JointForce 'spring' (Spring(c=1000000000000.0, x0=0.0)) sets it" in message
    assert "method='Radau' (not 'BDF', unstable for lightly damped oscillations)" in message
    assert err.result.stats["nsteps"] <= FAST
    assert 0.0 < err.t < 1e-3


def test_the_advice_holds_radau_steps_over_the_stiff_mode():
    """The static deflection -m g / k, in a handful of steps."""
    result = stiff_slider(0.0).simulate(1.0, output_step=0.5, method="Radau")
    assert result.stats["nsteps"] < 50
    assert result.joint("rail").q[-1] == pytest.approx(-M_TINY * G / K_STIFF, rel=1e-6)


def test_a_stiff_model_moving_in_its_fast_mode_fails_fast_too():
    """Started 1 mm off equilibrium, the 1e9 rad/s oscillation is excited: the steps resolve
    it (h |lambda| well inside DOP853's stability limit: not called stiff, issue 45); the
    message names it and its element, and the remedies whether that motion matters or not."""
    err = failure(stiff_slider(1e-3), 1.0)
    message = str(err)
    assert "The model is not stiff" in message and "an oscillating mode of 1e+09 rad/s" in message
    assert "JointForce 'spring'" in message
    assert "raise max_steps (now 1000000) to about" in message
    assert "If that fast motion does not matter, soften or damp JointForce 'spring'" in message
    assert err.result.stats["nsteps"] <= FAST


@pytest.mark.parametrize("compiled", PATHS)
def test_max_steps_is_a_budget_the_run_keeps(compiled):
    err = failure(pendulum(), 10.0, max_steps=50, compiled=compiled)
    assert "took its max_steps = 50 steps and reached only t = " in str(err)
    assert err.result.stats["nsteps"] == 50
    assert 0.0 < err.t < 10.0


def test_a_tiny_max_step_is_named_as_what_holds_the_step():
    err = failure(pendulum(), 100.0, max_step=1e-9)
    assert "The step is held at max_step = 1e-09 s: raise it" in str(err)
    assert err.result.stats["nsteps"] <= FAST


# ----------------------------------------------------------------------------- blow-up


@pytest.mark.parametrize("compiled", PATHS)
def test_a_blow_up_is_reported_as_growth_with_its_element_not_as_coincident_cs(compiled):
    err = failure(blow_up(), 1.0, compiled=compiled)
    message = str(err)
    assert message.startswith(("the state became non-finite at t = ",
                               "the state grew past 1e+100 at t = "))
    assert "the motion grew without bound" in message
    assert "an unstable mode: a mode of rate +1e+09 1/s" in message
    assert "BodySpringDamper 'sd' (k=10.0, b=-1000000.0, r0=0.5) sets it" in message
    assert "negative damping" in message
    assert "coincide" not in message


# ----------------------------------------------------------------------------- user code


def stiffness_raising_after(t_fail):
    def K(t):
        if t > t_fail:
            raise ZeroDivisionError("K divided by zero")
        return 5.0
    return K


def with_element(law):
    return pendulum(lambda model, hinge: model.add(JointForce("fe", hinge, law)))


def test_an_exception_in_a_stiffness_function_names_element_function_and_time():
    err = failure(with_element(VariableRotationalSpring(K=stiffness_raising_after(0.05),
                                                        K_min=1.0)), 0.2)
    message = str(err)
    assert message.startswith("JointForce 'fe': its function K() raised ZeroDivisionError at "
                              "t = 0.0")
    assert message.endswith("K divided by zero")
    assert isinstance(err.__cause__, ZeroDivisionError)
    assert err.t > 0.05
    assert err.result.t[-1] > 0.0       # rows before the failure are kept


def test_an_exception_in_an_actuator_function_is_a_simulation_error():
    err = failure(with_element(Actuator(value=lambda t: 1.0 / 0.0 if t > 0.02 else 0.0)), 0.2)
    assert str(err).startswith("JointForce 'fe': its function raised ZeroDivisionError at t = ")
    assert err.t > 0.02


@pytest.mark.parametrize("returned, error, text", [
    (float("nan"), ValueError, "finite"),
    ("5", TypeError, "'5'"),
])
def test_a_bad_value_from_a_user_function_is_a_simulation_error_with_its_cause(returned, error,
                                                                             text):
    err = failure(with_element(VariableRotationalSpring(
        K=lambda t: returned if t > 0.05 else 5.0, K_min=1.0)), 0.2)
    assert str(err).startswith("JointForce 'fe': its function raised ")
    assert isinstance(err.__cause__, error) and text in str(err.__cause__)
    assert err.t > 0.05


def test_a_compiled_stiffness_turning_nan_mid_run_is_named_not_called_a_step_underflow():
    """A numba K(t) that returns NaN from t = 0.1 s on runs in the compiled loop, where every
    step across 0.1 s is rejected until the step size underflows: the failure names the
    element, K and the NaN at 0.1 s (as the Python K's does), not "the step size fell below
    round-off"; the rows before 0.1 s are kept."""
    import numba

    @numba.njit
    def stiffness(t):
        return 5.0 if t < 0.1 else np.nan

    err = failure(with_element(VariableRotationalSpring(K=stiffness, K_min=1.0)), 0.2)
    message = str(err)
    assert message.startswith("JointForce 'fe': its function stiffness() raised ValueError at "
                              "t = 0.1 s: VariableRotationalSpring: K(t) must return")
    assert "must return a finite real number, got nan" in message
    assert "step size" not in message
    assert err.t == pytest.approx(0.1, abs=1e-12)
    assert err.result.t[-1] == pytest.approx(0.09) and err.result.stats["stepper"] == "compiled"


def test_an_exception_in_a_driver_motion_names_the_driver():
    def position(t):
        if t > 0.05:
            raise RuntimeError("encoder lost")
        return 0.3 + t

    system = pendulum(lambda model, hinge: model.add(mbd.MotionDriver(
        "motor", hinge, position=position, velocity=lambda t: 1.0,
        acceleration=lambda t: 0.0)))
    err = failure(system, 0.2)
    assert str(err).startswith("MotionDriver 'motor': its motion raised RuntimeError at t = ")
    assert str(err).endswith("encoder lost")
    assert isinstance(err.__cause__, RuntimeError)


# ----------------------------------------------------------------------------- tolerances


@pytest.mark.parametrize("method, compiled", [("DOP853", None), ("DOP853", False),
                                              ("Radau", None)])
def test_an_atol_finer_than_double_precision_fails_at_once_saying_so(method, compiled):
    err = failure(pendulum(), 1.0, rtol=1e-8, atol=1e-300, method=method, compiled=compiled)
    message = str(err)
    assert message.startswith(f"the integrator {method} failed at t = 0 s")
    assert "With atol = 1e-300, joint 'hinge' v (= 0 here) must be computed" in message
    assert message.endswith("raise atol")


@pytest.mark.parametrize("options", [
    dict(rtol=RTOL_MIN, atol=1e-300),
    dict(rtol=RTOL_MIN, atol=1e-300, compiled=False),
    dict(rtol=RTOL_MIN, atol=RTOL_MIN),
    dict(rtol=0.99, atol=1e3),
    dict(max_step=1e-12),
    dict(method="BDF"),
    dict(method="LSODA"),
], ids=lambda options: ",".join(f"{k}={v}" for k, v in options.items()))
def test_no_setting_makes_a_long_run_hang(options):
    """A pendulum for 1e9 s (3e8 periods): every setting fails within the steps of the
    projected budget check (or at once), with a SimulationError carrying its rows."""
    try:
        result = pendulum().simulate(1e9, output_step=1e8, **options)
    except mbd.SimulationError as err:
        assert err.result is not None and len(err.result.t) >= 1
        steps = err.result.stats["nsteps"]
    else:
        steps = result.stats["nsteps"]
    assert steps <= FAST


def test_the_step_budget_check_does_not_fail_a_run_that_fits():
    """A run whose projected total stays under max_steps is left alone (the demo: events,
    contacts, a Python K(t))."""
    from mbd.cli import demo
    system = demo.build_model().build()
    result = system.simulate(demo.T_END, output_step=demo.OUTPUT_STEP, rtol=demo.RTOL,
                             atol=demo.ATOL, max_steps=2 * 10 ** 4)
    assert result.t[-1] == demo.T_END


def test_a_mode_at_rate_zero_is_described_not_divided_by():
    """A step-budget failure at rest on a free direction: the fastest mode's rate is 0 (no
    time constant), and its description must say so rather than raise ZeroDivisionError."""
    from mbd.run import diagnosis
    assert "rate 0" in diagnosis.Mode(0j).what
