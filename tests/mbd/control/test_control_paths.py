"""Controllers and sensors on the paths the other control tests do not walk (SPEC §9), each
against something independent of the engine: closed forms of the block on a slider (an
undamped or damped oscillator, the exactly sampled double integrator), scipy's solve_ivp of a
closed loop through a controller's state, the units the quantities' definitions give; every
bad definition or input refused naming the controller, the rule and the value.

- controllers of the user's own class (a sampled :class:`mbd.control.Controller` with no
  state, a :class:`mbd.control.Continuous` evaluated from Python), a controller's output k
  read by another, a single input given bare, a loop through a controller's state (no
  algebraic loop), a pickled result run again;
- sensors: bad names (a spherical joint's angle, a coordinate a joint lacks, a bushing-like
  element, a component of a component) and the units of joint coordinates past a free joint.
"""
import pickle

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mbd
from forces import BodySpringDamper, JointForce, SpringDamper
from joints import Cylindrical, Prismatic, Revolute, SixDof, Spherical
from mbd.control import Continuous, Controller
from mbd.control.signals import quantity, unit
from mbd.exchange.variables import variables

from .test_control import M, slider, zoh

TIGHT = dict(rtol=1e-11, atol=1e-12)


def oscillator(k, x0, t):
    """x(t) of the block (M) on the slider under u = -k x from rest at x0."""
    return x0 * np.cos(np.sqrt(k / M) * t)


def damped(kp, kd, x0, t):
    """x(t) of the block (M) under u = -kp x - kd x' from rest at x0 (underdamped)."""
    w0, zeta = np.sqrt(kp / M), kd / (2.0 * np.sqrt(kp * M))
    wd = w0 * np.sqrt(1.0 - zeta ** 2)
    return x0 * np.exp(-zeta * w0 * t) * (np.cos(wd * t) + zeta * w0 / wd * np.sin(wd * t))


# ------------------------------------------------------------ controllers of the user's own

class DigitalSpring(Controller):
    """A sampled spring u_k = -k x_k of the user's own: a period, ``update``, no state (the
    state before the first sample is the base class's: none)."""

    def __init__(self, name, measured, k, period):
        super().__init__(name, measured, 1)
        self.k, self.period = k, period

    def update(self, t, x, u):
        return x, np.array([-self.k * u[0]])


class PD(Continuous):
    """A continuous PD of the user's own, u = -kp q - kd q' (no state), with no compiled
    form: evaluated from Python."""

    def __init__(self, name, inputs, kp, kd):
        super().__init__(name, inputs, 1)
        self.kp, self.kd, self.x0 = kp, kd, np.zeros(0)

    def derivative(self, t, x, u):
        return x, np.array([-self.kp * u[0] - self.kd * u[1]])


class Unfinished(Continuous):
    """A continuous controller of the user's own that forgot its ``derivative``."""

    def __init__(self, name, inputs):
        super().__init__(name, inputs, 1)
        self.x0 = np.zeros(0)


def test_a_sampled_controller_of_the_users_own_class_is_the_sampled_double_integrator():
    """At every sample the position is the exact zero-order-hold recurrence (the state-less
    controller starts with the base class's empty state), and a live simulation reads the
    output it holds by the controller's name."""
    T, k, x0 = 0.1, 20.0, 0.1
    system = slider(DigitalSpring("u", "pos", k, T), x0=x0)
    result = system.simulate(1.0, output_step=T, **TIGHT)
    want = zoh(T, 11, lambda j, x, v: -k * x, x0=x0)
    np.testing.assert_allclose(result.joint("slide").q, want[:, 0], rtol=0, atol=1e-12)
    assert result.controller("u").x.shape[1] == 0            # no state
    sim = system.start(**TIGHT)
    sim.advance_to(0.25)                # held since the sample at 0.2 s: u_2 = -k x_2
    assert sim.read("u") == pytest.approx(want[2, 2], abs=1e-12)


def test_a_continuous_controller_of_the_users_own_class_runs_from_python():
    """The PD without a compiled form: the run steps with scipy's solver and follows the
    damped oscillator's closed form; its description says it is evaluated from Python."""
    kp, kd, x0 = 20.0, 2.0, 0.1
    pd = PD("u", ["pos", "vel"], kp, kd)
    assert pd.describe() == ("PD 'u': continuous, evaluated from Python, inputs (pos, vel), "
                             "1 output(s)")
    result = slider(pd, x0=x0).simulate(2.0, output_step=0.01, **TIGHT)
    assert result.stats["stepper"] == "scipy"
    np.testing.assert_allclose(result.joint("slide").q, damped(kp, kd, x0, result.t),
                               rtol=0, atol=1e-9)


def test_a_continuous_controller_without_a_derivative_stops_the_run_naming_it():
    with pytest.raises(mbd.SimulationError, match=r"Unfinished 'u' raised NotImplementedError "
                                                  r"at t = 0 s: .*derivative\(t, x, u\)"):
        slider(Unfinished("u", ["pos"])).simulate(0.1, output_step=0.01)


def spring_law(t, x, u):
    """A user's continuous controller as a plain Python function: u = -20 q."""
    return x, [-20.0 * u[0]]


def test_a_result_of_a_users_python_controller_pickles_and_its_copy_runs_the_same():
    """(A run's result holds its system and its controllers; the copy is a new process's.)"""
    controller = mbd.ContinuousController("u", spring_law, ["pos"])
    assert controller.describe() == ("ContinuousController 'u': continuous, evaluated from "
                                      "Python, inputs (pos), 1 output(s)")
    result = slider(controller, x0=0.1).simulate(0.5, output_step=0.01, **TIGHT)
    np.testing.assert_allclose(result.joint("slide").q, oscillator(20.0, 0.1, result.t),
                               rtol=0, atol=1e-9)
    copy = pickle.loads(pickle.dumps(result))
    again = copy.system.simulate(0.5, output_step=0.01, **TIGHT)
    np.testing.assert_array_equal(again.q, result.q)


# ------------------------------------------------------------ inputs, outputs and loops

def test_a_bare_input_and_another_controllers_second_output():
    """p = (q, 2 q) from one input given bare (not in a list), u = -10 p[1] = -20 q: the
    undamped oscillator's closed form."""
    p = mbd.Gain("p", [[1.0], [2.0]], "pos")
    assert p.inputs == ("pos",)
    u = mbd.Gain("u", [-10.0], [p[1]])
    assert repr(p[1]) == "p[1]" and p[1].initial == 0.0
    result = slider(p, u, x0=0.1).simulate(2.0, output_step=0.01, **TIGHT)
    np.testing.assert_allclose(result.joint("slide").q, oscillator(20.0, 0.1, result.t),
                               rtol=0, atol=1e-9)


def test_a_cycle_through_a_controllers_state_is_no_algebraic_loop():
    """u = -8 q + f, f the state of x' = -x + 0.5 u (no feedthrough: D = 0): build() accepts
    the cycle u -> f -> u, and the run equals solve_ivp of the closed loop."""
    u = mbd.Gain("u", [-8.0, 1.0], ["pos", "f"])
    f = mbd.StateSpace("f", A=[[-1.0]], B=[[0.5]], C=[[1.0]], D=[[0.0]], inputs=["u"])
    result = slider(u, f, x0=0.1).simulate(2.0, output_step=0.01, **TIGHT)

    def rhs(t, z):
        q, v, x = z
        force = -8.0 * q + x
        return [v, force / M, -x + 0.5 * force]
    ref = solve_ivp(rhs, (0.0, 2.0), [0.1, 0.0, 0.0], t_eval=result.t, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(result.joint("slide").q, ref.y[0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(result.controller_states[:, 0], ref.y[2], rtol=0, atol=1e-9)


def test_state_space_matrices_given_flat_are_a_column_and_a_row():
    """With one input B given as n numbers is the (n, 1) column; with one output C given as
    n numbers is the (1, n) row (x' = A x + B u, y = C x + D u at x = (1, 2), u = 3)."""
    ss = mbd.StateSpace("s", A=np.diag([-1.0, -2.0]), B=[1.0, 2.0], C=[3.0, 4.0], D=[[0.5]],
                        inputs=["pos"])
    xdot, y = ss.derivative(0.0, np.array([1.0, 2.0]), np.array([3.0]))
    np.testing.assert_array_equal(xdot, [-1.0 + 3.0, -4.0 + 6.0])
    np.testing.assert_array_equal(y, [3.0 + 8.0 + 1.5])


@pytest.mark.parametrize("make, message", [
    (lambda: mbd.StateSpace("u", A=[[-1.0]], B=[[1.0, 2.0]], C=[[1.0]], D=[[0.0, 0.0]],
                            inputs=["pos"]),
     r"StateSpace 'u': B and D take 2 inputs, got 1"),
    (lambda: mbd.Gain("u", [[1.0, 2.0]], ["pos"]), r"Gain 'u': K takes 2 inputs, got 1"),
    (lambda: mbd.ContinuousController("u", 3.0, ["pos"]),
     r"ContinuousController 'u': function must be callable f\(t, x, u\) -> \(x_dot, y\), "
     r"got 3.0"),
    (lambda: mbd.StateSpace("u", A=[[-1.0]], B=[["x"]], C=[[1.0]], D=[[0.0]], inputs=["pos"]),
     r"controller 'u': B must be real numbers, got \[\['x'\]\]"),
    (lambda: mbd.StateSpace("u", A=[[-1.0]], B=[[1.0]], C=[[1.0]], D=[[0.0]], inputs=["pos"],
                            x0=["a"]),
     r"StateSpace 'u': x0 must be real numbers, got \['a'\]"),
    (lambda: mbd.StateSpace("u", A=[[-1.0]], B=[[1.0], [2.0]], C=[[1.0]], D=[[0.0]],
                            inputs=["pos"]),
     r"controller 'u': B must have the shape \(1, 1\), got \(2, 1\): \[\[1.0\], \[2.0\]\]"),
    (lambda: mbd.StateSpace("u", A=[[-1.0]], B=[[np.inf]], C=[[1.0]], D=[[0.0]],
                            inputs=["pos"]),
     r"controller 'u': B must be finite, got \[\[inf\]\]"),
], ids=["StateSpace inputs", "Gain inputs", "function", "not numbers", "x0 not numbers",
        "shape", "not finite"])
def test_bad_controller_definitions_are_named(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_an_output_a_controller_lacks_is_named():
    gain = mbd.Gain("u", [1.0], ["pos"])
    for k in (1, -1, "0"):
        with pytest.raises(IndexError, match=rf"Gain 'u' has 1 output\(s\), got \[{k!r}\]"):
            gain[k]


@pytest.mark.parametrize("value", [np.nan, True, b"pos"], ids=["nan", "bool", "bytes"])
def test_an_input_that_is_no_signal_is_named_at_build(value):
    with pytest.raises(mbd.ModelError, match=rf"Gain 'u': input 1 is {value!r}: an input is a "
                                             r"Sensor, an Input, a controller \(or the name of "
                                             r"one\) or a finite number"):
        slider(mbd.Gain("u", [1.0, 1.0], ["pos", value]))


def test_a_sensor_object_not_added_to_the_model_is_named():
    with pytest.raises(mbd.ModelError, match=r"Gain 'u': its input Sensor\('far', 'slide.q'\) "
                                             "is not added to the model"):
        slider(mbd.Gain("u", [1.0], [mbd.Sensor("far", "slide.q")]))


@pytest.mark.parametrize("make", [
    lambda: mbd.Gain("u", [1.0], ["bad"]),
    lambda: mbd.DiscreteController("u", lambda t, x, u: (x, [0.0]), ["bad"], period=0.1),
], ids=["continuous", "discrete"])
def test_a_controller_reading_a_sensor_of_a_bad_name_leaves_it_to_the_sensor(make):
    """One problem, the sensor's (a continuous controller raised a bare ValueError here)."""
    with pytest.raises(mbd.ModelError) as err:
        slider(mbd.Sensor("bad", "nothing.q"), make())
    message = str(err.value)
    assert message.startswith("Sensor 'bad': 'nothing.q' names no joint, motion driver, force "
                              "element or body CS")
    assert "'u'" not in message and "problems" not in message


def test_a_controller_reading_a_badly_fed_controller_is_no_loop():
    """u reads b, b reads a name of nothing: b's problem alone, no algebraic loop."""
    with pytest.raises(mbd.ModelError) as err:
        slider(mbd.Gain("u", [1.0], ["b"]), mbd.Gain("b", [1.0], ["ghost"]))
    assert str(err.value) == ("Gain 'b': input 0 names 'ghost', which is no sensor, input or "
                              "controller of the model (they are ['b', 'pos', 'u', 'vel'])")


def test_descriptions_say_what_each_control_element_is():
    pid = mbd.DiscretePID("u", "pos", setpoint=1.0, kp=2.0, period=0.01)
    assert pid.describe() == ("DiscretePID 'u': sampled every 0.01 s, inputs (1.0, pos), "
                              "1 output(s), kp=2.0, ki=0.0, kd=0.0, tf=0.0, setpoint=1.0")
    assert repr(pid) == "DiscretePID('u')"
    assert mbd.Gain("k", [2.0], ["pos"]).describe() == (          # compiled: no "from Python"
        "Gain 'k': continuous, inputs (pos), 1 output(s)")
    assert mbd.Sensor("pos", "slide.q").describe() == "Sensor 'pos': measures slide.q"
    assert mbd.Input("push", 1.5, unit="N").describe() == "Input 'push': starts at 1.5 N"
    assert mbd.Input("gain", 2.0).describe() == "Input 'gain': starts at 2.0"
    assert DigitalSpring("d", "pos", 3.0, 0.5).describe() == (
        "DigitalSpring 'd': sampled every 0.5 s, inputs (pos), 1 output(s)")


# ------------------------------------------------------------------------------ sensors

def machine(*sensors):
    """A floating base (SixDof 'free') carrying an arm on a hinge about z, the arm a cart on
    a slide along x; a ball on a ball joint from the ground, a sleeve on a cylindrical
    joint; spring-dampers on the hinge and slide and a strap from the ground to the arm."""
    m = mbd.Model("machine")
    earth = mbd.Environment(gravity=(0, 0, -9.81))
    g = m.add_ground("ground", environment=earth)
    base = m.add_body("base", mass=3.0, cg=(0, 0, 0), inertia=[0.1] * 3,
                      cs={"o": (0, 0, 0), "end": (1, 0, 0)})
    arm = m.add_body("arm", mass=1.0, cg=(1.5, 0, 0), inertia=[0.05] * 3,
                     cs={"o": (1, 0, 0), "end": (2, 0, 0)})
    cart = m.add_body("cart", mass=0.5, cg=(2, 0, 0), inertia=[0.01] * 3, cs={"o": (2, 0, 0)})
    ball = m.add_body("ball", mass=1.0, cg=(0, 3, -1), inertia=[0.1] * 3, cs={"o": (0, 3, 0)})
    sleeve = m.add_body("sleeve", mass=1.0, cg=(0, -3, 0), inertia=[0.1] * 3,
                        cs={"o": (0, -3, 0)})
    m.add(SixDof("free", g, base["o"]))
    hinge = m.add(Revolute("hinge", base["end"], arm["o"], axis=(0, 0, 1)))
    slide = m.add(Prismatic("slide", arm["end"], cart["o"], axis=(1, 0, 0)))
    m.add(Spherical("socket", m.add_ground("pin", at=(0, 3, 0), environment=earth), ball["o"]))
    rod = m.add_ground("rod", at=(0, -3, 0), environment=earth)
    m.add(Cylindrical("cyl", rod, sleeve["o"], axis=(0, 0, 1)))
    m.add(JointForce("twist", hinge, SpringDamper(c=10.0, d=0.5)))
    m.add(JointForce("push", slide, SpringDamper(c=100.0, d=1.0)))
    m.add(BodySpringDamper("strap", g, arm["end"], k=80.0, b=1.5, r0=0.4))
    for name, what in sensors:
        m.add(mbd.Sensor(name, what))
    return m


def test_joint_units_past_a_free_joint_are_their_coordinates():
    """The free joint's q has 7 numbers for 6 rates, so q and v indices differ after it: the
    hinge's angle is in rad and the slide's travel in m (they were m and none), each its
    rate's unit without "/s"; an FMU's outputs carry them."""
    model = machine(("angle", "hinge.q"), ("travel", "slide.q"), ("lift", "cyl.q0"),
                    ("spin", "cyl.q1"))
    system = model.build()
    assert quantity(system, "hinge.q")[2] > quantity(system, "hinge.v")[2]
    want = {"hinge": "rad", "slide": "m", "cyl.q0": "m", "cyl.q1": "rad"}   # q = (s, phi)
    for name, length in want.items():
        q, v = (f"{name}.q", f"{name}.v") if "." not in name else (name, name.replace("q", "v"))
        assert (unit(system, q), unit(system, v)) == (length, length + "/s"), name
    outputs = {v.name: v.unit for v in variables(model, system) if v.causality == "output"}
    assert outputs == {"angle": "rad", "travel": "m", "lift": "m", "spin": "rad"}


def test_units_of_the_energy_and_of_a_force_elements_quantities():
    system = machine().build()
    assert unit(system, "energy") == "J"
    assert [unit(system, f"twist.{w}") for w in ("value", "x", "xdot")] == [
        "N.m", "rad", "rad/s"]
    assert [unit(system, f"push.{w}") for w in ("value", "x", "xdot")] == ["N", "m", "m/s"]


@pytest.mark.parametrize("what, message", [
    ("", r"a measured quantity is a name such as 'hinge.q', got ''"),
    (3, r"a measured quantity is a name such as 'hinge.q', got 3"),
    ("socket.q", r"'socket.q': joint 'socket' has a spherical or free primitive, whose "
                 "orientation is not one number; measure a CS of its follower instead"),
    ("free.v", r"'free.v': joint 'free' has a spherical or free primitive"),
    ("hinge.q1", r"'hinge.q1': joint 'hinge' has 1 coordinate\(s\): hinge.q$"),
    ("cyl.v2", r"'cyl.v2': joint 'cyl' has 2 coordinate\(s\): cyl.v0, cyl.v1$"),
    ("cyl.q", r"'cyl.q': joint 'cyl' has 2 coordinate\(s\): cyl.q0, cyl.q1$"),
    ("push.force", r"'push.force': a force element measures value, x, xdot, got 'force'"),
    ("strap.value", r"'strap.value': force element 'strap' is not 1-D \(a bushing or a body "
                    r"spring-damper\); measure the CSs it joins"),
    ("turn_w[0]", r"'turn_w\[0\]': 'turn_w' is no vector quantity or sensor, whose "
                  r"components '\[k\]' could be taken"),
    ("arm.o.quaternion[0][1]", r"'arm.o.quaternion\[0\]\[1\]': 'arm.o.quaternion\[0\]' is no "
                               "vector quantity or sensor"),
], ids=["empty", "not a name", "ball joint", "free joint", "one coordinate", "two rates",
        "no K", "element quantity", "not 1-D", "a component sensor's component",
        "a component's component"])
def test_bad_sensor_names_are_refused_naming_why(what, message):
    with pytest.raises(mbd.ModelError, match=rf"Sensor 's': {message}"):
        machine(("turn_w", "arm.o.quaternion[0]"), ("s", what)).build()
