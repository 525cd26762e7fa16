"""Control in the loop (SPEC §9): sensors, inputs, discrete and continuous controllers, and the
live simulation, against closed forms and independent integrations.

- A block on a frictionless slider driven by a digital controller through a zero-order hold
  is a double integrator sampled exactly: x_{k+1} = x_k + T v_k + T^2 u_k / (2 m), v_{k+1} =
  v_k + T u_k / m. The run's state at every sample instant equals that recurrence (with the
  controller's law recomputed here from its formula) to round-off.
- A continuous PID on the same block is a linear ODE: scipy's solve_ivp of it at rtol 1e-12.
- The live simulation takes the very steps of one long run: rows and states bit-identical.
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mbd
from forces import Actuator, ElastoGap, JointForce
from joints import Prismatic, Revolute

M = 2.0          # kg, the block


def slider(*controls, drive="u", x0=0.0, gap=None):
    """A block (M) on a frictionless x slider, no gravity, sensors ``pos`` and ``vel``, the
    control elements ``controls`` added, and a force on the slider from the signal named
    ``drive`` (an element of ``controls``); ``gap``: an ElastoGap on the slider too."""
    model = mbd.Model("slider")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = model.add_body("block", mass=M, cg=(0, 0, 0), inertia=np.eye(3) * 0.1,
                       cs={"nose": (0.1, 0, 0)})
    slide = model.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0), q0=x0))
    model.add(mbd.Sensor("pos", "slide.q"))
    model.add(mbd.Sensor("vel", "slide.v"))
    named = {c.name: model.add(c) for c in controls}
    model.add(JointForce("push", slide, Actuator(named[drive])))
    if gap is not None:
        model.add(JointForce("gap", slide, gap))
    return model.build()


def zoh(T, n, law, x0=0.0):
    """The exactly sampled double integrator under ``law(k, x, v) -> u`` held over [kT,
    (k+1)T): [(x_k, v_k, u_k)] for k < n."""
    x, v, out = x0, 0.0, []
    for k in range(n):
        u = law(k, x, v)
        out.append((x, v, u))
        x, v = x + T * v + T * T * u / (2.0 * M), v + T * u / M
    return np.array(out)


def discrete_pid(kp, ki, kd, tf, T, lo=-np.inf, hi=np.inf, setpoint=1.0):
    """DiscretePID's law from its docstring, as a function of (k, x, v) with its own memory."""
    memory = {"I": 0.0, "d": 0.0, "e": None}

    def law(k, x, v):
        e = setpoint - x
        e_prev = e if memory["e"] is None else memory["e"]
        d = (tf * memory["d"] + kd * (e - e_prev)) / (tf + T)
        raw = kp * e + memory["I"] + d
        u = min(max(raw, lo), hi)
        if not ((raw > hi and ki * e > 0) or (raw < lo and ki * e < 0)):
            memory["I"] += ki * T * e
        memory["d"], memory["e"] = d, e
        return u
    return law


@pytest.mark.parametrize("gains", [dict(kp=50.0), dict(kp=40.0, ki=30.0, kd=2.0, tf=0.02),
                                   dict(kp=80.0, ki=60.0, limits=(-20.0, 20.0))],
                         ids=["P", "PID filtered", "PI clipped, anti-windup"])
def test_a_digital_pid_through_a_zero_order_hold_is_the_sampled_double_integrator(gains):
    """At every sample instant the run's position equals the exact recurrence (7e-16 m
    measured for P, the integrator at rtol 1e-11 between samples being exact on a
    quadratic), its outputs the law recomputed here."""
    T = 0.01
    limits = gains.get("limits", (-np.inf, np.inf))
    pid = mbd.DiscretePID("u", "pos", setpoint=1.0, period=T, **gains)
    result = slider(pid).simulate(0.6, output_step=T, rtol=1e-11, atol=1e-12)
    c = result.controller("u")
    want = zoh(T, len(c.t), discrete_pid(gains.get("kp", 0.0), gains.get("ki", 0.0),
                                         gains.get("kd", 0.0), gains.get("tf", 0.0), T,
                                         *limits))
    np.testing.assert_allclose(c.u[:, 1], want[:, 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(c.y[:, 0], want[:, 2], rtol=0, atol=1e-9)
    if "limits" in gains:
        assert c.y[0, 0] == limits[1]        # the first samples saturate
    # the force the result reports is the held output, right-continuous at each instant
    push = result.force("push").value
    rows = np.searchsorted(c.t, result.t, side="right") - 1
    np.testing.assert_array_equal(push, c.y[rows, 0])


def test_sample_instants_are_exact_multiples_of_the_period_and_end_pieces():
    """Controller instants t0 + k T computed as products: exact; each ends a piece (50
    intervals of 1 ms: 50 pieces; the 7 ms controller's instants fall on 1 ms ones); a second
    controller at another period is sampled at its own instants, reading the state there."""
    T, t0 = 1e-3, 0.25
    fast = mbd.DiscretePID("u", "pos", setpoint=0.1, kp=30.0, period=T)
    slow = mbd.DiscreteStateSpace("watch", np.zeros((0, 0)), np.zeros((0, 1)),
                                  np.zeros((1, 0)), [[1.0]], ["pos"], period=7e-3)
    result = slider(fast, slow).simulate(t0 + 0.05, t0=t0, output_step=0.01)
    c, w = result.controller("u"), result.controller("watch")
    assert np.array_equal(c.t, t0 + np.arange(len(c.t)) * T) and len(c.t) == 51
    assert np.array_equal(w.t, t0 + np.arange(len(w.t)) * 7e-3) and len(w.t) == 8
    assert result.stats["samples"] == 59 and result.stats["pieces"] == 50
    # both read the state at the instants they share: the same number
    np.testing.assert_array_equal(w.y[:, 0], c.u[::7, 1])


def test_a_user_digital_controller_and_its_state():
    """A user's f(t, x, u) -> (x_next, y): a counter state and a bang-bang output, called at
    every instant with its state."""
    def f(t, x, u):
        return x + 1.0, [3.0 if u[0] < 0.05 else -3.0]
    ctrl = mbd.DiscreteController("u", f, ["pos"], period=0.02, x0=[0.0])
    result = slider(ctrl).simulate(0.4, output_step=0.02)
    c = result.controller("u")
    np.testing.assert_array_equal(c.x[:, 0], np.arange(len(c.t)))
    np.testing.assert_array_equal(c.y[:, 0], np.where(c.u[:, 0] < 0.05, 3.0, -3.0))


def test_continuous_pid_is_integrated_with_the_mechanism():
    """m x'' = kp e + I + kd (-x'), I' = ki e (the rate from a sensor): solve_ivp at 1e-12
    agrees to 5e-10 (4e-11 measured); the integral is in the result's controller states."""
    kp, ki, kd = 20.0, 10.0, 6.0
    pid = mbd.PID("u", "pos", setpoint=1.0, kp=kp, ki=ki, kd=kd, rate="vel")
    result = slider(pid).simulate(3.0, output_step=0.01, rtol=1e-10, atol=1e-12)
    assert result.stats["stepper"] == "compiled"     # the PID evaluated in the compiled loop

    def f(t, z):
        x, v, integral = z
        e = 1.0 - x
        return [v, (kp * e + integral - kd * v) / M, ki * e]
    ref = solve_ivp(f, (0, 3), [0, 0, 0], t_eval=result.t, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(result.joint("slide").q, ref.y[0], atol=5e-10)
    np.testing.assert_allclose(result.controller_states[:, 0], ref.y[2], atol=5e-10)
    c = result.controller("u")
    np.testing.assert_allclose(c.y[:, 0], result.force("push").value, rtol=1e-14)


def test_a_filtered_pid_derivative_and_a_state_space_controller():
    """PID's derivative kd s / (tf s + 1) and StateSpace(A, B, C, D) = the same filter: the two
    runs agree (4e-13 measured), and both equal solve_ivp of the closed loop."""
    kd, tf, kp = 4.0, 0.05, 25.0
    pid = mbd.PID("u", "pos", setpoint=0.5, kp=kp, kd=kd, tf=tf)
    # e = 0.5 - x; u = kp e + kd (e - z)/tf, z' = (e - z)/tf as a state space on [setpoint, x]
    ss = mbd.StateSpace("u", A=[[-1 / tf]], B=[[1 / tf, -1 / tf]], C=[[-kd / tf]],
                        D=[[kp + kd / tf, -(kp + kd / tf)]], inputs=[0.5, "pos"])
    a = slider(pid).simulate(1.0, output_step=0.01, rtol=1e-11, atol=1e-12)
    b = slider(ss).simulate(1.0, output_step=0.01, rtol=1e-11, atol=1e-12)

    def f(t, s):
        x, v, z = s
        e = 0.5 - x
        return [v, (kp * e + kd * (e - z) / tf) / M, (e - z) / tf]
    ref = solve_ivp(f, (0, 1), [0, 0, 0], t_eval=a.t, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(a.joint("slide").q, ref.y[0], atol=1e-9)
    np.testing.assert_allclose(b.joint("slide").q, a.joint("slide").q, atol=1e-9)


def test_sensors_read_what_the_result_views_give():
    """result.sensor of a joint rate, a CS's position and velocity, a force element's value
    and the energy: the same numbers as the views they name."""
    model = mbd.Model("arm")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    b = model.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, 0.02, 0.02]),
                       cs={"pivot": (0, 0, 0), "tip": (1, 0, 0)})
    hinge = model.add(Revolute("hinge", g, b["pivot"], axis=(0, 1, 0), q0=0.3))
    torque = model.add(mbd.Input("torque", 0.4, unit="N.m"))
    model.add(JointForce("motor", hinge, Actuator(torque)))
    for name, what in (("rate", "hinge.v"), ("tip_z", "arm.tip.z"), ("tip_vx", "arm.tip.vx"),
                       ("spin", "arm.tip.wy"), ("motor_torque", "motor.value"),
                       ("e", "energy")):
        model.add(mbd.Sensor(name, what))
    r = model.build().simulate(0.5, output_step=0.05)
    np.testing.assert_array_equal(r.sensor("rate"), r.joint("hinge").v)
    np.testing.assert_array_equal(r.sensor("tip_z"), r.body("arm").position("tip")[:, 2])
    np.testing.assert_array_equal(r.sensor("tip_vx"), r.body("arm").velocity("tip")[:, 0])
    np.testing.assert_array_equal(r.sensor("spin"), r.body("arm").angular_velocity[:, 1])
    np.testing.assert_array_equal(r.sensor("motor_torque"), np.full(len(r.t), 0.4))
    np.testing.assert_array_equal(r.sensor("e"), r.energy())
    np.testing.assert_array_equal(r.input("torque"), np.full(len(r.t), 0.4))


def test_linearize_takes_inputs_and_sensors_and_closes_static_loops():
    """The slider with an Input force: A = [[0, 1], [0, 0]], B = [0, 1/M], C = [1, 0] for the
    sensor ``pos``; closed by a PD Gain (u = -k x - c v), A = [[0, 1], [-k/M, -c/M]]; by a PI,
    whose integral is a third state."""
    system = slider(mbd.Input("u", 0.0))
    lin = mbd.linearize(system, system.initial_state(), inputs=["u"], outputs=["pos", "vel"])
    np.testing.assert_allclose(lin.A, [[0, 1], [0, 0]], atol=1e-9)
    np.testing.assert_allclose(lin.B, [[0], [1 / M]], rtol=1e-9)
    np.testing.assert_allclose(lin.C, np.eye(2), rtol=1e-9, atol=1e-12)
    k, c = 30.0, 4.0
    closed = slider(mbd.Gain("u", [-k, -c], ["pos", "vel"]))
    lin = mbd.linearize(closed, closed.initial_state())
    np.testing.assert_allclose(lin.A, [[0, 1], [-k / M, -c / M]], rtol=1e-7)
    # a PI (u = -x + I, I' = -x): its state joins the mechanism's, after it
    pi = slider(mbd.PID("u", "pos", kp=1.0, ki=1.0))
    lin = mbd.linearize(pi, pi.initial_state())
    assert lin.state_names == ["slide.q", "slide.v", "u.x"]
    np.testing.assert_allclose(lin.A, [[0, 1, 0], [-1 / M, 0, 1 / M], [-1, 0, 0]], rtol=1e-9,
                               atol=1e-12)
    with pytest.raises(ValueError, match=r"continuous controllers \['u'\] have states"):
        mbd.equilibrium(pi)


# ---------------------------------------------------------------------- the live simulation

def gap_slider():
    """The slider pushed by an Input (-4 N) into an ElastoGap at x = -0.3 m: first contact at
    0.55 s, then bounces."""
    return slider(mbd.Input("u", -4.0, unit="N"), gap=ElastoGap(c=5e3, d=5.0, s_rel0=-0.3))


def test_a_thousand_steps_are_one_run():
    """1000 steps of 1 ms with constant inputs take the steps of one 1 s run: rows, events and
    the state at every step bit-identical (events inside steps: the gap's contacts)."""
    system = gap_slider()
    whole = system.simulate(1.0, output_step=1e-3)
    assert len(whole.events) >= 2
    sim = system.start(t_end=1.0, output_step=1e-3)
    for k in range(1, 1001):
        state = sim.advance_to(k * 1e-3)
        np.testing.assert_array_equal(state.q, whole.q[np.searchsorted(whole.t, k * 1e-3)])
    r = sim.result()
    np.testing.assert_array_equal(r.t, whole.t)
    np.testing.assert_array_equal(r.q, whole.q)
    assert [(e.t, e.what) for e in r.events] == [(e.t, e.what) for e in whole.events]


def test_without_a_horizon_rows_are_the_times_advanced_to():
    """start() with no t_end: a row at every time advanced to, the state there the long
    run's (its dense output, the same steps)."""
    system = gap_slider()
    whole = system.simulate(0.5, output_step=0.05)
    sim = system.start()
    for _ in range(1, 11):
        sim.step(0.05)
    r = sim.result()
    assert len(r.t) == 11
    np.testing.assert_allclose(r.q, whole.q, atol=1e-12)


def test_an_input_set_mid_run_acts_from_that_instant():
    """A force F set at t1 on a block at rest: x = F (t - t1)^2 / (2 M) after it, exactly; a
    value equal to the held one changes nothing (no restart: rows identical)."""
    system = slider(mbd.Input("u", 0.0))
    sim = system.start()
    sim.advance_to(0.3)
    sim.set_input("u", 0.0)             # the same value: nothing happens
    sim.set_input("u", 4.0)
    for t in (0.35, 0.5, 1.0):
        assert sim.advance_to(t).q[0] == pytest.approx(4.0 * (t - 0.3) ** 2 / (2 * M),
                                                       rel=1e-12)
    assert sim.read("u") == 4.0 and sim.read("pos") == sim.state.q[0]
    r = sim.result()
    np.testing.assert_array_equal(r.input("u"), np.where(r.t >= 0.3, 4.0, 0.0))


def test_an_input_set_before_a_crossing_inside_the_step_keeps_every_row():
    """A step that holds a contact begin past the time asked for: the crossing waits; an input
    set there ends the piece, and the rows up to that time are all written (none lost with
    the dropped step)."""
    system = gap_slider()
    whole = system.simulate(0.6, output_step=1e-3)
    contact = next(e.t for e in whole.events if e.what == "contact begins")
    sim = system.start(t_end=1.0, output_step=1e-3)
    stop = np.floor(contact * 1e3) / 1e3 + 2e-4         # inside the step of the crossing?
    sim.advance_to(stop)
    sim.set_input("u", -4.0 + 1e-9)                    # a new value: the piece ends here
    sim.advance_to(0.6)
    r = sim.result()
    np.testing.assert_array_equal(r.t[r.t < contact], whole.t[whole.t < contact])
    np.testing.assert_allclose(r.q, whole.q[:len(r.q)], atol=1e-9)
    assert any(e.what == "contact begins" and abs(e.t - contact) < 1e-9 for e in r.events)


def test_save_and_restore_repeat_bit_for_bit():
    """A snapshot restored and run on with the same inputs repeats the rows, events and state
    exactly; restored and run with another input, it differs."""
    system = gap_slider()
    sim = system.start(t_end=1.0, output_step=0.01)
    sim.advance_to(0.2)
    snap = sim.save()
    sim.set_input("u", 3.0)
    sim.advance_to(0.9)
    first = sim.result()
    sim.restore(snap)
    assert sim.t == 0.2
    sim.set_input("u", 3.0)
    sim.advance_to(0.9)
    again = sim.result()
    np.testing.assert_array_equal(again.q, first.q)
    np.testing.assert_array_equal(again.t, first.t)
    assert [(e.t, e.what) for e in again.events] == [(e.t, e.what) for e in first.events]
    sim.restore(snap)
    sim.advance_to(0.9)
    assert not np.array_equal(sim.result().q, first.q)


# ---------------------------------------------------------------------- bad input

def test_bad_control_input_is_named():
    with pytest.raises(ValueError, match=r"DiscretePID 'u': period must be > 0"):
        mbd.DiscretePID("u", "pos", kp=1.0, period=0.0)
    with pytest.raises(ValueError, match="limits must be"):
        mbd.DiscretePID("u", "pos", kp=1.0, period=0.1, limits=(1.0, -1.0))
    with pytest.raises(ValueError, match="kd = 1.0 with tf = 0 needs the rate"):
        mbd.PID("u", "pos", kd=1.0)
    with pytest.raises(mbd.ModelError, match=r"Sensor 'far': 'nowhere.q' names no joint"):
        slider(mbd.Sensor("far", "nowhere.q"), mbd.Input("u"))
    with pytest.raises(mbd.ModelError, match=r"input 0 names 'ghost'"):
        slider(mbd.Gain("u", [1.0], ["ghost"]))
    with pytest.raises(mbd.ModelError, match=r"algebraic loop.*'a' -> 'b' -> 'a'"):
        slider(mbd.Gain("a", [1.0], ["b"]), mbd.Gain("b", [1.0], ["a"]), drive="a")
    with pytest.raises(mbd.ModelError, match="measures a force"):
        slider(mbd.Sensor("f", "push.value"), mbd.Gain("u", [1.0], ["f"]))
    model = mbd.Model("m")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = model.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3))
    slide = model.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0)))
    model.add(JointForce("push", slide, Actuator(mbd.Input("orphan"))))
    with pytest.raises(mbd.ModelError, match="reads Input\\('orphan'.*not added to the model"):
        model.build()


def test_a_controller_returning_nan_stops_the_run_naming_it_with_the_rows_so_far():
    def f(t, x, u):
        return x, [np.nan if t >= 0.1 else 1.0]
    system = slider(mbd.DiscreteController("u", f, ["pos"], period=0.02))
    with pytest.raises(mbd.SimulationError,
                       match=r"DiscreteController 'u' at t = 0.1 s: its output must be 1 "
                             r"finite number\(s\), got \[nan\]") as err:
        system.simulate(1.0, output_step=0.01)
    assert err.value.result.t[-1] == pytest.approx(0.1) and len(err.value.result.t) >= 10

    def wrong(t, x, u):
        return x, [1.0, 2.0]
    system = slider(mbd.DiscreteController("u", wrong, ["pos"], period=0.02))
    with pytest.raises(mbd.SimulationError, match="its output must be 1 finite"):
        system.simulate(0.1)


def test_live_simulation_bad_calls_are_named():
    system = slider(mbd.Input("u", 0.0))
    with pytest.raises(ValueError, match="output_step needs t_end"):
        system.start(output_step=0.1)
    sim = system.start(t_end=1.0)
    sim.advance_to(0.5)
    with pytest.raises(ValueError, match=r"advance_to: t must be >= the time reached, 0.5"):
        sim.advance_to(0.4)
    with pytest.raises(ValueError, match=r"<= t_end = 1.0"):
        sim.advance_to(1.5)
    with pytest.raises(KeyError, match="no input 'v'; the inputs are \\['u'\\]"):
        sim.set_input("v", 1.0)
    with pytest.raises(ValueError, match="set_input: 'u' must be finite"):
        sim.set_input("u", np.inf)
    with pytest.raises(KeyError, match="'nothing' is no sensor"):
        sim.read("nothing")


# ---------------------------------------------------------------------- compiled user functions

def test_a_numba_function_of_time_runs_compiled_inside_the_right_hand_side():
    """K(t) and an actuator's value(t) given as @njit functions: the compiled loop runs them
    (no Python per evaluation), the run equals the same functions given in Python (scipy's
    stepper, the same DOP853) to 1e-12 rad (3e-15 measured) with the same K_min switches."""
    numba = pytest.importorskip("numba")
    from forces import VariableRotationalSpring

    @numba.njit
    def stiffness(t):
        return 5.0 + 4.0 * np.sin(3.0 * t)

    @numba.njit
    def drive(t):
        return 0.3 * np.cos(2.0 * t)

    def run(k, value):
        model = mbd.Model("p")
        g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
        b = model.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                           cs={"pivot": (0, 0, 0)})
        hinge = model.add(Revolute("hinge", g, b["pivot"], axis=(0, 1, 0), q0=0.2))
        model.add(JointForce("spring", hinge, VariableRotationalSpring(K=k, K_min=2.0)))
        model.add(JointForce("motor", hinge, Actuator(value)))
        return model.build().simulate(5.0, output_step=0.01, rtol=1e-10, atol=1e-12)

    fast = run(stiffness, drive)
    slow = run(stiffness.py_func, drive.py_func)
    assert (fast.stats["stepper"], slow.stats["stepper"]) == ("compiled", "scipy")
    np.testing.assert_allclose(fast.q, slow.q, atol=1e-12)
    assert len(fast.events) == len(slow.events) == 4
    for a, b in zip(fast.events, slow.events):
        assert a.what == b.what and a.t == pytest.approx(b.t, abs=1e-9)
    # the stiffness in use at every row: K(t) where K >= K_min, else K_min
    in_use = np.where(fast.sides[:, 0, 0] > 0, stiffness.py_func(fast.t), 2.0)
    np.testing.assert_allclose(fast.force("spring").state["K"], in_use, rtol=1e-14)


def test_a_numba_function_of_the_wrong_form_is_named_on_construction():
    numba = pytest.importorskip("numba")

    @numba.njit
    def two(t, state):
        return t

    @numba.njit
    def vector(t):
        return np.array([t, t])

    with pytest.raises(ValueError, match="Actuator: value must be callable as value\\(t\\)"):
        Actuator(two)
    with pytest.raises(ValueError, match="the numba function vector must return a float, "
                                         "returns array"):
        Actuator(vector)


# ---------------------------------------------------------------------- overrides and sweeps

def test_controllers_are_overridden_and_swept_like_any_element(tmp_path):
    """``--set pid.kp=...`` and a sweep's grid over a DiscretePID's kp and an Input's value:
    each run is the model built with those numbers (its final position equals the zero-order
    hold recurrence at that gain); an unknown parameter is named."""
    from mbd.study import scripts
    script = tmp_path / "slider_pid.py"
    script.write_text(
        "import numpy as np, mbd\n"
        "from forces import Actuator, JointForce\n"
        "from joints import Prismatic\n"
        "T_END, OUTPUT_STEP = 0.3, 0.01\n"
        "def build_model():\n"
        "    m = mbd.Model('slider')\n"
        "    g = m.add_ground('ground', environment=mbd.Environment(gravity=(0, 0, 0)))\n"
        "    b = m.add_body('block', mass=2.0, cg=(0, 0, 0), inertia=np.eye(3) * 0.1)\n"
        "    s = m.add(Prismatic('slide', g, b['cg'], axis=(1, 0, 0)))\n"
        "    m.add(mbd.Sensor('pos', 'slide.q'))\n"
        "    target = m.add(mbd.Input('target', 1.0))\n"
        "    pid = m.add(mbd.DiscretePID('pid', 'pos', setpoint=target, kp=50.0, "
        "period=0.01))\n"
        "    m.add(JointForce('push', s, Actuator(pid)))\n"
        "    return m\n")
    study = mbd.sweep(str(script), {"pid.kp": [20.0, 60.0], "target.value": [0.5]},
                      outputs={"x": "final:joint.slide.q"}, workers=1,
                      rtol=1e-11, atol=1e-12)
    assert list(study["pid.kp"]) == [20.0, 60.0]
    for kp, x in zip(study["pid.kp"], study["x"]):
        # the row at 0.3 s: the state after the holds of the samples at 0 ... 0.29 s
        want = zoh(0.01, 31, discrete_pid(kp, 0.0, 0.0, 0.0, 0.01, setpoint=0.5))
        assert x == pytest.approx(want[-1, 0], abs=1e-9), kp
    model = __import__("runpy").run_path(str(script))["build_model"]()
    with pytest.raises(mbd.InputError, match="DiscretePID 'pid' has no settable parameter "
                                             "'kx'; its settable parameters are: kp, ki"):
        scripts.apply_setting(model, "pid.kx=3")
