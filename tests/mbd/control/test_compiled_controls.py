"""Continuous controllers evaluated inside the compiled right-hand side (SPEC §9: "a numba
@njit function runs compiled inside the right-hand side"; :mod:`mbd.compiled.controlkernels`).

Every compiled kind is checked against the same controller written as a plain Python
function (which the run evaluates from Python, stepping with scipy's solver): the two runs
are different code paths through different integrator loops, and agree to the integration
tolerance. (tests/mbd/control/test_control.py checks the compiled PID against solve_ivp of its
closed loop.)
"""
import numpy as np
import pytest
from numba import njit

import mbd
from forces import Actuator, JointForce
from joints import Revolute

from .test_control import slider


def python_twin(controller, inputs):
    """A ContinuousController running ``controller``'s own ``derivative`` from Python, with
    its inputs, states and outputs."""
    return mbd.ContinuousController(controller.name, controller.derivative, inputs,
                                    x0=controller.initial_state(),
                                    outputs=controller.outputs)


def both(controller, inputs, t_end=1.0, **options):
    """(the run with ``controller`` compiled, the run with its Python twin) of the slider."""
    options = dict(dict(output_step=0.01, rtol=1e-11, atol=1e-12), **options)
    compiled = slider(controller).simulate(t_end, **options)
    python = slider(python_twin(controller, inputs)).simulate(t_end, **options)
    assert compiled.stats["stepper"] == "compiled"
    assert python.stats["stepper"] == "scipy"
    return compiled, python


@pytest.mark.parametrize("make", [
    lambda: mbd.PID("u", "pos", setpoint=1.0, kp=20.0, ki=10.0, kd=6.0, rate="vel"),
    lambda: mbd.PID("u", "pos", setpoint=0.5, kp=40.0, ki=30.0, kd=2.0, tf=0.02,
                    limits=(-8.0, 8.0)),
    lambda: mbd.StateSpace("u", A=[[-20.0]], B=[[20.0, -20.0]], C=[[-80.0]],
                           D=[[105.0, -105.0]], inputs=[0.5, "pos"]),
    lambda: mbd.Gain("u", [[-30.0, -4.0]], ["pos", "vel"], offset=15.0),
    lambda: mbd.Lookup("u", mbd.Table([-1.0, 0.0, 0.3, 1.0], [40.0, 10.0, -5.0, -60.0],
                                      kind="pchip", extrapolate="linear"), "pos"),
    lambda: mbd.Lookup("u", mbd.Table2D([-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0],
                                        [[50.0, 30.0, 10.0], [20.0, 0.0, -20.0],
                                         [-10.0, -30.0, -50.0]]), ("pos", "vel")),
], ids=["PID", "PID filtered, clipped", "StateSpace", "Gain", "Lookup", "Lookup 2-D"])
def test_each_compiled_kind_equals_its_python_twin(make):
    """Positions agree to 1e-9 m over 1 s (the two integrations' tolerance), and the
    compiled run's controller outputs, read back, are the force the actuator applied."""
    controller = make()
    compiled, python = both(controller, controller.inputs)
    np.testing.assert_allclose(compiled.joint("slide").q, python.joint("slide").q, atol=1e-9)
    np.testing.assert_allclose(compiled.controller_states, python.controller_states,
                               atol=1e-8)
    c = compiled.controller("u")
    np.testing.assert_allclose(c.y[:, 0], compiled.force("push").value, rtol=1e-14)


@njit
def pd_with_memory(t, x, u):
    """A user's numba controller: a PD on (position, rate) with a first-order lag state
    x' = (u0 - x) / 0.05 added to its output."""
    rates = np.empty(1)
    rates[0] = (u[0] - x[0]) / 0.05
    out = np.empty(1)
    out[0] = -25.0 * (u[0] - 0.4) - 5.0 * u[1] + 2.0 * x[0]
    return rates, out


def test_a_numba_user_controller_runs_compiled_and_equals_the_python_function():
    numba_run = slider(mbd.ContinuousController("u", pd_with_memory, ["pos", "vel"],
                                                x0=[0.0])).simulate(
        1.5, output_step=0.01, rtol=1e-11, atol=1e-12)
    python_run = slider(mbd.ContinuousController("u", pd_with_memory.py_func, ["pos", "vel"],
                                                 x0=[0.0])).simulate(
        1.5, output_step=0.01, rtol=1e-11, atol=1e-12)
    assert numba_run.stats["stepper"] == "compiled"
    assert python_run.stats["stepper"] == "scipy"
    np.testing.assert_allclose(numba_run.joint("slide").q, python_run.joint("slide").q,
                               atol=1e-9)
    np.testing.assert_allclose(numba_run.controller_states, python_run.controller_states,
                               atol=1e-9)
    # the lag state follows the position: x_c = 20 int exp(-20 (t - s)) pos(s) ds > 0
    assert numba_run.controller_states[-1, 0] > 0.3


def pendulum(controller, sensors):
    """A 1 kg point mass on a 1 m arm hanging from a hinge about y (gravity -z), its hinge
    torque from ``controller``, with the sensors {name: what} added."""
    model = mbd.Model("pendulum")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = model.add_body("arm", mass=1.0, cg=(0, 0, -1.0), inertia=np.eye(3) * 1e-6,
                         cs={"pivot": (0, 0, 0), "tip": (0, 0, -1.0)})
    hinge = model.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.3))
    for name, what in sensors.items():
        model.add(mbd.Sensor(name, what))
    model.add(controller)
    model.add(JointForce("motor", hinge, Actuator(controller)))
    return model.build()


def test_a_cs_sensor_is_measured_compiled_as_the_result_reads_it():
    """A Gain on the tip's world x and z velocity and the body's angular velocity: the
    compiled run equals the Python twin, and its inputs are the result's CS views."""
    sensors = {"x": "arm.tip.x", "vz": "arm.tip.vz", "w": "arm.tip.wy"}
    gain = mbd.Gain("u", [[-8.0, 1.5, -0.7]], list(sensors))
    compiled = pendulum(gain, sensors).simulate(2.0, output_step=0.01, rtol=1e-11,
                                                atol=1e-12)
    python = pendulum(python_twin(gain, list(sensors)), sensors).simulate(
        2.0, output_step=0.01, rtol=1e-11, atol=1e-12)
    assert compiled.stats["stepper"] == "compiled" and python.stats["stepper"] == "scipy"
    np.testing.assert_allclose(compiled.joint("hinge").q, python.joint("hinge").q, atol=1e-9)
    tip = compiled.body("arm")
    u = compiled.controller("u").u
    np.testing.assert_allclose(u[:, 0], tip.position("tip")[:, 0], atol=1e-14)
    np.testing.assert_allclose(u[:, 1], tip.velocity("tip")[:, 2], atol=1e-13)
    np.testing.assert_allclose(u[:, 2], tip.angular_velocity[:, 1], atol=1e-13)


def test_controllers_feeding_controllers_and_inputs_run_compiled():
    """A Gain reading a PID's output and an Input: u = 0.5 pid + input, against the Python
    twins of both."""
    def run(twins):
        pid = mbd.PID("pid", "pos", setpoint=1.0, kp=30.0, kd=8.0, rate="vel")
        scale = mbd.Gain("u", [[0.5, 1.0]], ["pid", "bias"])
        if twins:
            pid, scale = python_twin(pid, pid.inputs), python_twin(scale, scale.inputs)
        return slider(pid, mbd.Input("bias", 2.0), scale).simulate(
            1.0, output_step=0.01, rtol=1e-11, atol=1e-12)
    compiled, python = run(False), run(True)
    assert compiled.stats["stepper"] == "compiled" and python.stats["stepper"] == "scipy"
    np.testing.assert_allclose(compiled.joint("slide").q, python.joint("slide").q, atol=1e-9)
    y_pid = compiled.controller("pid").y[:, 0]
    np.testing.assert_allclose(compiled.force("push").value, 0.5 * y_pid + 2.0, rtol=1e-13)


def test_a_python_controller_among_compiled_ones_runs_all_from_python_and_says_why():
    slow = mbd.ContinuousController("slow", lambda t, x, u: (x, [0.0]), ["pos"])
    system = slider(slow, mbd.PID("u", "pos", setpoint=1.0, kp=10.0))
    with pytest.raises(ValueError, match=r"ContinuousController 'slow' is a Python function"):
        system.simulate(0.1, compiled=True)
    assert system.simulate(0.1).stats["stepper"] == "scipy"


def test_a_live_simulation_steps_compiled_controllers():
    """1000 steps of 1 ms of a compiled PID loop are the one long run, row for row."""
    def system():
        return slider(mbd.PID("u", "pos", setpoint=1.0, kp=20.0, ki=10.0, kd=6.0,
                              rate="vel"))
    whole = system().simulate(1.0, output_step=0.001, rtol=1e-10, atol=1e-12)
    sim = system().start(rtol=1e-10, atol=1e-12, t_end=1.0, output_step=0.001)
    for k in range(1, 1001):
        sim.advance_to(k * 1e-3)
    stepped = sim.result()
    np.testing.assert_array_equal(stepped.q, whole.q)
    np.testing.assert_array_equal(stepped.controller_states, whole.controller_states)
    assert sim.read("u") == pytest.approx(whole.controller("u").y[-1, 0], rel=1e-14)


@njit
def returns_nan_late(t, x, u):
    out = np.empty(1)
    out[0] = np.nan if t >= 0.25 else -10.0 * u[0]
    return x.copy(), out


@njit
def returns_two_outputs(t, x, u):
    return x.copy(), np.zeros(2)


def test_a_compiled_controller_returning_nan_or_the_wrong_size_stops_the_run_naming_it():
    system = slider(mbd.ContinuousController("u", returns_nan_late, ["pos"]), x0=0.1)
    with pytest.raises(mbd.SimulationError,
                       match=r"ContinuousController 'u' at t = 0\.2\d* s: its output must be 1 "
                             r"finite number\(s\), got \[nan\]") as err:
        system.simulate(1.0, output_step=0.01)
    rows = err.value.result       # up to the last step accepted before the failing one
    assert len(rows.t) >= 10 and rows.t[-1] < 0.25
    assert np.all(np.isfinite(rows.q))
    system = slider(mbd.ContinuousController("u", returns_two_outputs, ["pos"]))
    with pytest.raises(mbd.SimulationError, match=r"its output must be 1 finite number\(s\); "
                                                  r"it returned another number of them"):
        system.simulate(0.1)


@njit
def two_arguments(t, x):
    return x, x


@njit
def returns_a_float(t, x, u):
    return x, 1.0


@pytest.mark.parametrize("function, message", [
    (two_arguments, r"numba cannot compile it for that"),
    (returns_a_float, r"it returns Tuple\(array\(float64, 1d, C\), float64\)"),
], ids=["two arguments", "a float output"])
def test_a_numba_controller_of_the_wrong_signature_is_named_at_build(function, message):
    with pytest.raises(mbd.ModelError, match=r"ContinuousController 'u': its numba function "
                                             r"must be f\(t: float, x: float64 array, u: "
                                             r"float64 array of 1\) -> \(x_dot, y\).*" + message):
        slider(mbd.ContinuousController("u", function, ["pos"]))


def geared(controller):
    """Two wheels on hinges about y (no gravity) coupled by a gear, out = 3 pin (a constraint
    row: the constrained right-hand side), the first driven by ``controller`` on its angle and
    rate towards 1 rad."""
    model = mbd.Model("geared")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    wheels = [model.add_body(name, mass=1.0, cg=(0, 0, 0), inertia=np.diag([j, 2 * j, j]),
                             cs={"axle": (0, 0, 0)})        # coaxial: the gear couples them
              for name, j in (("pinion", 0.01), ("wheel", 0.15))]
    pin = model.add(Revolute("pin", g, wheels[0]["axle"], axis=(0, 1, 0)))
    out = model.add(Revolute("out", g, wheels[1]["axle"], axis=(0, 1, 0)))
    model.add(mbd.GearConstraint("mesh", pin, out, ratio=3.0))
    model.add(mbd.Sensor("angle", "pin.q"))
    model.add(mbd.Sensor("rate", "pin.v"))
    model.add(controller)
    model.add(JointForce("motor", pin, Actuator(controller)))
    return model.build()


def test_a_compiled_controller_drives_a_constrained_mechanism():
    """A PID through a gear (the constrained right-hand side with controllers) equals its
    Python twin, and the gear holds: out = 3 pin."""
    pid = mbd.PID("u", "angle", setpoint=1.0, kp=2.0, ki=1.0, kd=0.8, rate="rate")
    options = dict(output_step=0.01, rtol=1e-11, atol=1e-12)
    compiled = geared(pid).simulate(2.0, **options)
    python = geared(python_twin(pid, pid.inputs)).simulate(2.0, **options)
    assert compiled.stats["stepper"] == "compiled" and python.stats["stepper"] == "scipy"
    np.testing.assert_allclose(compiled.joint("pin").q, python.joint("pin").q, atol=1e-9)
    np.testing.assert_allclose(compiled.joint("out").q, 3.0 * compiled.joint("pin").q,
                               atol=1e-10)
    assert compiled.joint("pin").q[-1] > 0.5           # on its way to the setpoint
