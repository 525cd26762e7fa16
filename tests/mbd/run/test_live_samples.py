"""A live simulation advanced to a discrete controller's sample instant takes that sample
before it returns (issue 44): after ``advance_to(t)`` the state, every read, every law value,
the controllers' outputs and their samples are those of one ``simulate()`` run's row at t,
bit for bit, whatever the step: equal to the period, a multiple of it, a part of it, or
incommensurate with it (the steps then meet the sample instants only now and then).

The grids are exact: the period T = 2 ms and the rows' spacing T/16 (a power of two apart),
so that the row (16 k) T/16 is the very number k T of the k-th sample instant.
"""
import numpy as np
import pytest

import mbd
from forces import Actuator, JointForce
from joints import Prismatic, Revolute

from .test_loops import fourbar

T = 0.002            # s, the controllers' period
DT = T / 16          # s, the rows of the one run: every sample instant is one of them
T_END = 30 * T       # s, 30 periods (a sample instant)
RTOL, ATOL = 1e-9, 1e-11

#: the sensors read (the joint state, a CS position, an acceleration, a reaction)
SENSORS = ("q1", "q2", "w1", "w2", "tip_z", "tip_az", "shoulder_fz")


def two_link_arm():
    """A two-link arm hanging in gravity, each joint driven by a digital PD at 2 ms: a
    DiscreteStateSpace of two outputs ("ctrl[0]", "ctrl[1]") on the shoulder and a
    DiscretePID on a measured rate (rate=) adding to the elbow's torque."""
    model = mbd.Model("arm2")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    upper = model.add_body("upper", mass=2.0, cg=(0.25, 0, 0),
                           inertia=np.diag([1e-3, 0.04, 0.04]),
                           cs={"pivot": (0, 0, 0), "elbow": (0.5, 0, 0)})
    fore = model.add_body("fore", mass=1.0, cg=(0.75, 0, 0), inertia=np.diag([1e-3, 0.02, 0.02]),
                          cs={"elbow": (0.5, 0, 0), "tip": (1.0, 0, 0)})
    shoulder = model.add(Revolute("shoulder", g, upper["pivot"], axis=(0, 1, 0), q0=0.2))
    elbow = model.add(Revolute("elbow", upper["elbow"], fore["elbow"], axis=(0, 1, 0),
                               q0=-0.3))
    for name, what in (("q1", "shoulder.q"), ("q2", "elbow.q"), ("w1", "shoulder.v"),
                       ("w2", "elbow.v"), ("tip_z", "fore.tip.z"), ("tip_az", "fore.tip.az"),
                       ("shoulder_fz", "shoulder.fz")):
        model.add(mbd.Sensor(name, what))
    ctrl = model.add(mbd.DiscreteStateSpace(
        "ctrl", np.zeros((0, 0)), np.zeros((0, 4)), np.zeros((2, 0)),
        [[-60.0, 0.0, -8.0, 0.0], [0.0, -30.0, 0.0, -4.0]], ["q1", "q2", "w1", "w2"],
        period=T))
    pd = model.add(mbd.DiscretePID("pd", "q2", setpoint=0.1, kp=20.0, kd=1.5, period=T,
                                   rate="w2"))
    model.add(JointForce("m1", shoulder, Actuator(ctrl[0])))
    model.add(JointForce("m2", elbow, Actuator(ctrl[1])))
    model.add(JointForce("m3", elbow, Actuator(pd)))
    return model.build()


@pytest.fixture(scope="module")
def arm():
    return two_link_arm()


@pytest.fixture(scope="module", params=[True, False], ids=["compiled", "scipy"])
def whole(request, arm):
    """(compiled, the one run with a row at every T/16)."""
    return request.param, arm.simulate(T_END, output_step=DT, rtol=RTOL, atol=ATOL,
                                       compiled=request.param)


def held(result, name, k, t):
    """Controller ``name``'s output k held at t (s) in ``result``: its last sample at or
    before t."""
    c = result.controller(name)
    return c.y[np.searchsorted(c.t, t, side="right") - 1, k]


def samples_up_to(result, name, t):
    return int(np.count_nonzero(result.controller(name).t <= t))


@pytest.mark.parametrize("every", [16, 48, 8, 7, 12],
                         ids=["the period", "3 periods", "half a period",
                              "incommensurate 7/16", "three quarters 12/16"])
@pytest.mark.parametrize("horizon", [True, False], ids=["t_end", "open-ended"])
def test_an_advance_ending_at_a_sample_instant_takes_that_sample(arm, whole, every, horizon):
    """Advanced every ``every`` rows of the one run, the live run equals it at every stop:
    state, sensors, law values, the controllers' outputs and sample counts; its samples and
    (with t_end) its rows are the one run's, the sample at t_end included."""
    compiled, one = whole
    sensors = {name: one.sensor(name) for name in SENSORS}
    laws = {name: one.force(name).value for name in ("m1", "m2", "m3")}
    options = dict(t_end=T_END, output_step=DT) if horizon else {}
    sim = arm.start(rtol=RTOL, atol=ATOL, compiled=compiled, **options)
    stops = list(range(every, len(one.t), every))
    if stops[-1] != len(one.t) - 1:
        stops.append(len(one.t) - 1)
    at_samples = 0
    for i in stops:
        t = one.t[i]
        state = sim.advance_to(t)
        assert sim.t == t
        assert np.array_equal(state.q, one.q[i]) and np.array_equal(state.v, one.v[i]), t
        for name, column in sensors.items():
            assert sim.read(name) == column[i], (name, t)
        for name, column in laws.items():
            assert sim.read(f"{name}.value") == column[i], (name, t)
        assert sim.read("ctrl") == sim.read("ctrl[0]") == held(one, "ctrl", 0, t)
        assert sim.read("ctrl[1]") == held(one, "ctrl", 1, t)
        assert sim.read("pd") == held(one, "pd", 0, t)
        assert sim.read("m2.value") == sim.read("ctrl[1]")     # the law reads the held output
        so_far = sim.result()
        for name in ("ctrl", "pd"):
            assert len(so_far.controller(name).t) == samples_up_to(one, name, t)
        at_samples += bool(np.any(one.controller("ctrl").t == t))
    # the stops met the sample instants at every 16th row (the grids are exact)
    assert at_samples == sum(i % 16 == 0 for i in stops) >= 2
    stepped = sim.result()
    assert stepped.stats["samples"] == one.stats["samples"] == 2 * 31   # t_end's included
    for name in ("ctrl", "pd"):
        mine, theirs = stepped.controller(name), one.controller(name)
        for part in ("t", "x", "u", "y"):
            assert np.array_equal(getattr(mine, part), getattr(theirs, part)), (name, part)
    if horizon:
        assert np.array_equal(stepped.t, one.t) and np.array_equal(stepped.q, one.q)
        assert np.array_equal(stepped.v, one.v)
        assert np.array_equal(stepped.force("m1").value, laws["m1"])
    else:                     # a row at every time advanced to
        assert np.array_equal(stepped.t, np.concatenate([[0.0], one.t[stops]]))
        assert np.array_equal(stepped.q, one.q[[0] + stops])


def test_stepped_at_1_ms_every_read_at_a_sample_instant_is_the_new_output(arm):
    """The issue's case: a 2 ms PD stepped at 1 ms: at every sample instant the outputs read
    are the ones sampled there (not the ones held since the instant before), and the run
    ends with the samples of one run, the one at t_end included (11 per controller)."""
    one = arm.simulate(10 * T, output_step=T / 2, rtol=RTOL, atol=ATOL)
    c = one.controller("ctrl")
    assert len(c.t) == 11
    sim = arm.start(rtol=RTOL, atol=ATOL)
    for k in range(1, 21):
        sim.advance_to(k * T / 2)
        j = k // 2      # the last sample: at k T / 2 itself for an even k
        assert (sim.read("ctrl"), sim.read("ctrl[1]")) == (c.y[j, 0], c.y[j, 1]), k
        assert sim.read("pd") == one.controller("pd").y[j, 0]
    assert sim.result().stats["samples"] == one.stats["samples"] == 2 * 11
    assert np.array_equal(sim.result().controller("ctrl").y, c.y)


def test_a_saved_and_restored_run_at_a_sample_instant_repeats_it(arm):
    """A snapshot taken where an advance took a sample goes on as the run did."""
    sim = arm.start(t_end=T_END, output_step=DT, rtol=RTOL, atol=ATOL)
    sim.advance_to(0.75 * T)          # inside the first piece: its end (T) lies ahead
    sim.advance_to(T)
    snap = sim.save()
    sim.advance_to(T_END)
    first = sim.result()
    sim.restore(snap)
    assert sim.read("ctrl") == first.controller("ctrl").y[1, 0]
    sim.advance_to(T_END)
    again = sim.result()
    assert np.array_equal(again.q, first.q)
    assert np.array_equal(again.controller("ctrl").y, first.controller("ctrl").y)


# ------------------------------------------------------------------------------- reads


def test_reads_take_the_names_the_outputs_have_everywhere(arm):
    """sim.read of a controller's output k is "NAME[k]", as a Result's held values and a
    linear model's outputs name it; a continuous controller's too; a bad index is named."""
    sim = arm.start(rtol=RTOL, atol=ATOL)
    sim.advance_to(3 * T)
    one = sim.result()
    assert sim.read("ctrl[0]") == held(one, "ctrl", 0, 3 * T)
    assert sim.read("ctrl[1]") == held(one, "ctrl", 1, 3 * T) != sim.read("ctrl[0]")
    assert sim.read("pd[0]") == sim.read("pd")
    with pytest.raises(KeyError, match=r"read: 'ctrl\[2\]': DiscreteStateSpace 'ctrl' has 2 "
                                       r"output\(s\), 'ctrl\[0\]', 'ctrl\[1\]'"):
        sim.read("ctrl[2]")
    with pytest.raises(KeyError, match=r"read: 'nothing\[1\]' is no sensor, input or "
                                       "controller output"):
        sim.read("nothing[1]")


def test_a_continuous_controllers_outputs_are_read_by_name():
    """A StateSpace of two outputs (no state: y = D u) read as "ss[0]", "ss[1]", "ss"."""
    model = mbd.Model("slider")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = model.add_body("block", mass=2.0, cg=(0, 0, 0), inertia=np.eye(3) * 0.1)
    slide = model.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0), q0=0.5))
    model.add(mbd.Sensor("pos", "slide.q"))
    ss = model.add(mbd.StateSpace("ss", np.zeros((0, 0)), np.zeros((0, 1)), np.zeros((2, 0)),
                                  [[-3.0], [5.0]], ["pos"]))
    model.add(JointForce("push", slide, Actuator(ss[0])))
    sim = model.build().start()
    sim.advance_to(0.1)
    x = sim.state.q[0]
    assert sim.read("ss[0]") == sim.read("ss") == -3.0 * x
    assert sim.read("ss[1]") == 5.0 * x


# ------------------------------------------------------------------------ DiscretePID rate

M = 2.0     # kg


def block(*controls, drive):
    """A block (M) on a frictionless x slider with sensors "pos" and "vel", pushed by the
    output of control element ``drive``."""
    model = mbd.Model("slider")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = model.add_body("block", mass=M, cg=(0, 0, 0), inertia=np.eye(3) * 0.1)
    slide = model.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0)))
    model.add(mbd.Sensor("pos", "slide.q"))
    model.add(mbd.Sensor("vel", "slide.v"))
    named = {c.name: model.add(c) for c in controls}
    model.add(JointForce("push", slide, Actuator(named[drive])))
    return model.build()


def test_a_discrete_pd_on_a_measured_rate_is_the_sampled_double_integrator():
    """u_k = kp (1 - x_k) + ki T sum(e) - kd v_k held over each period: the block is the
    exactly sampled double integrator x_{k+1} = x_k + T v_k + T^2 u_k / (2 M), v_{k+1} =
    v_k + T u_k / M (recurrence computed here); the derivative term is -kd v_k, the rate
    read, not a difference of errors."""
    kp, ki, kd, Tc = 40.0, 8.0, 6.0, 0.01
    pid = mbd.DiscretePID("u", "pos", setpoint=1.0, kp=kp, ki=ki, kd=kd, period=Tc,
                          rate="vel")
    result = block(pid, drive="u").simulate(0.5, output_step=Tc, rtol=1e-11, atol=1e-12)
    c = result.controller("u")
    x = v = integral = 0.0
    want = []
    for _ in range(len(c.t)):
        e = 1.0 - x
        u = kp * e + integral - kd * v
        want.append((x, v, u))
        integral += ki * Tc * e
        x, v = x + Tc * v + Tc * Tc * u / (2.0 * M), v + Tc * u / M
    want = np.array(want)
    assert len(c.t) == 51
    np.testing.assert_allclose(c.u[:, 1], want[:, 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(c.u[:, 2], want[:, 1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(c.y[:, 0], want[:, 2], rtol=0, atol=1e-9)
    assert np.ptp(c.y[:, 0]) > 10.0      # it drove the block


def test_discrete_pd_by_hand():
    """One update by hand: e = 0.5 - 0.1 = 0.4, r = 2: u = 40 0.4 + 0 - 3 2 = 10; the second
    sample: e = 0.3, r = -1: u = 12 + ki T e_0 (= 5 0.002 0.4) + 3 = 15.004."""
    pd = mbd.DiscretePID("pd", "angle", setpoint=0.5, kp=40.0, ki=5.0, kd=3.0, period=0.002,
                         rate="rate")
    assert [getattr(i, "name", i) for i in pd.inputs] == [0.5, "angle", "rate"]
    x1, y0 = pd.update(0.0, pd.initial_state(), np.array([0.5, 0.1, 2.0]))
    assert y0[0] == pytest.approx(10.0, rel=1e-15)
    _, y1 = pd.update(0.002, x1, np.array([0.5, 0.2, -1.0]))
    assert y1[0] == pytest.approx(40.0 * 0.3 + 5.0 * 0.002 * 0.4 + 3.0, rel=1e-15)


@pytest.mark.parametrize("kind", ["PID", "DiscretePID"])
def test_a_rate_with_a_derivative_filter_is_refused_naming_the_controller(kind):
    """With tf > 0 the derivative is the filtered error's: a rate given too would be
    ignored, so it is an error naming the element, the rule and the value."""
    extra = {"period": 0.01} if kind == "DiscretePID" else {}
    with pytest.raises(ValueError, match=rf"{kind} 'u': rate= needs tf = 0 \(the derivative "
                                         r"is then -kd rate\); with a derivative filter tf = "
                                         r"0\.02 s it is made from the error and rate would "
                                         "be ignored"):
        getattr(mbd, kind)("u", "pos", kp=1.0, kd=2.0, tf=0.02, rate="vel", **extra)
    getattr(mbd, kind)("u", "pos", kp=1.0, kd=2.0, tf=0.0, rate="vel", **extra)   # fine


def test_an_override_of_tf_on_a_pd_on_a_rate_is_refused_too():
    pid = mbd.DiscretePID("u", "pos", kp=1.0, kd=2.0, period=0.01, rate="vel")
    with pytest.raises(ValueError, match=r"DiscretePID 'u': rate= needs tf = 0"):
        pid.with_parameters(tf=0.05)
    assert pid.with_parameters(kd=4.0).inputs == pid.inputs


# ------------------------------------------------------------------- the step budget


def test_an_open_ended_live_run_budgets_max_steps_per_advance():
    """Without t_end there is no total to project: many advances of 1000 steps each go on
    past 10 000 steps in all (they failed there), while one advance of more than max_steps
    fails naming the budget."""
    system = block(mbd.Input("f", 1.0), drive="f")
    sim = system.start(max_step=1e-5, max_steps=3000)
    for k in range(1, 16):
        sim.advance_to(k * 0.01)
    assert sim.run.stepping.nsteps >= 15_000
    assert sim.state.q[0] == pytest.approx(0.15 ** 2 / (2 * M), rel=1e-12)
    with pytest.raises(mbd.SimulationError, match=r"one advance took its max_steps = 3000 "
                                                   r"steps and reached only t = 0\.18"):
        sim.advance_to(0.2)


# ------------------------------------------------------- a multistep method's restarts


def test_a_multistep_restart_past_the_stop_waits_for_the_next_advance():
    """BDF on a four-bar restarts a piece where the projection onto the loop moved its state
    (mbd.run.steppers.scipy.ScipyStepper.end_step): a restart at a step's end past the time
    asked for is that piece's end reached past it, taken when the run goes on. The advance
    stops at t (it went on to the restart's time before) with the one run's row there."""
    system = fourbar(crank=dict(q0=0.0, v0=3.0, exact=True))
    one = system.simulate(0.08, output_step=0.004, method="BDF")
    assert one.stats["pieces"] > 100          # it restarts often
    sim = system.start(t_end=0.08, output_step=0.004, method="BDF")
    for i in range(1, len(one.t) - 1):      # (at t_end the row is projected, the state not)
        state = sim.advance_to(one.t[i])
        assert sim.t == one.t[i]
        assert np.array_equal(state.q, one.q[i]) and np.array_equal(state.v, one.v[i])
    sim.advance_to(one.t[-1])
    assert np.array_equal(sim.result().q, one.q)
