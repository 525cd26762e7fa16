"""The continuous PID's output limits and anti-windup (SPEC §9, :class:`mbd.PID`) against the
same closed loop written here as ODEs and integrated by scipy's ``solve_ivp``.

The plant: a pendulum (m = 1 kg, its cg l = 0.5 m below a hinge about y, J_cg = 1e-3 kg m^2,
gravity -z) with a viscous damper c on the hinge, driven by the PID's output through an
``Actuator`` on the hinge:

    J q'' = u - m g l sin q - c q',   J = J_cg + m l^2.

The PID law as :class:`mbd.PID`'s docstring writes it (the reference below is that text, not
mbd's code): e = r - q,

    u = clip(kp e + I + D, lo, hi),
    I' = ki e, but 0 while clipped and winding further (conditional integration: the raw
         output kp e + I + D past hi with ki e > 0, or past lo with ki e < 0) -- with
         anti_windup=True; without it I' = ki e always,
    D = kd (e - z) / tf,  z' = (e - z) / tf  (the filtered derivative kd s / (tf s + 1)).

(The docstring's "0 while clipped and winding further" leaves open what happens at raw = hi
exactly; with ki e != 0 there the loop crosses that set, so the choice does not matter.)

The setpoint r = 1.2 rad needs m g l sin r = 4.57 N m at rest; the limits (-2, 6) N m leave little
margin, so the output sits at hi for the first ~0.5 s (and at lo in the overshoot), long
enough for an unchecked integral to wind up: the overshoot is 0.06 rad with anti-windup and
0.22 rad without (the reference's numbers).

The reference integrates each piece between switches of the integral's law (raw crossing hi
or lo, e crossing 0) as a smooth ODE, the switches located by solve_ivp's events, DOP853 at
rtol 1e-10. Bound: the run (DOP853, rtol 1e-10, atol 1e-12) and the reference each leave a
global error of at most their steps' local errors summed in this damped, stable loop: a few
hundred steps at rtol x |y| (|q| <= 1.5 rad, |I| <= 10 N m) each, so BOUND_Q = 1e-7 rad and
BOUND_I = 1e-6 N m (1000 rtol x scale: a factor of 1000 for the steps, the run taking 250) --
1e5 times smaller than the difference anti-windup makes. (Measured: 1.2e-10 rad with
anti-windup, 1.2e-9 rad without.)
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mbd
from forces import Actuator, Damper, JointForce
from joints import Revolute

M, L, J_CG, G, C = 1.0, 0.5, 1e-3, 9.81, 0.2     # kg, m, kg m^2, m/s^2, N m s/rad
J = J_CG + M * L ** 2                           # kg m^2, about the hinge
R = 1.2                                         # rad, the setpoint
KP, KI, KD, TF = 30.0, 20.0, 2.0, 0.02          # N m/rad, N m/(rad s), N m s/rad, s
LO, HI = -2.0, 6.0                              # N m, the output's limits
T_END, STEP = 4.0, 0.01                         # s
RTOL, ATOL = 1e-10, 1e-12
#: the comparison's bounds (see the module): 1000 rtol x the scale of q (rad) and of I (N m)
BOUND_Q, BOUND_I = 1e3 * RTOL * 1.0, 1e3 * RTOL * 10.0


def pendulum(anti_windup):
    """The pendulum at rest hanging down, the PID on its angle, its output the hinge's
    torque."""
    model = mbd.Model("pid_pendulum")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    arm = model.add_body("arm", mass=M, cg=(0.0, 0.0, -L), inertia=np.eye(3) * J_CG,
                         cs={"pivot": (0.0, 0.0, 0.0)})
    hinge = model.add(Revolute("hinge", ground, arm["pivot"], axis=(0.0, 1.0, 0.0)))
    model.add(mbd.Sensor("angle", "hinge.q"))
    pid = model.add(mbd.PID("pid", "angle", setpoint=R, kp=KP, ki=KI, kd=KD, tf=TF,
                            limits=(LO, HI), anti_windup=anti_windup))
    model.add(JointForce("motor", hinge, Actuator(pid)))
    model.add(JointForce("friction", hinge, Damper(d=C)))
    return model.build()


# ----------------------------------------------------------------------------- the reference

def law(s):
    """(e, raw, u) of the PID at the state s = (q, w, I, z), from the docstring."""
    q, _, integral, z = s
    e = R - q
    raw = KP * e + integral + KD * (e - z) / TF
    return e, raw, min(max(raw, LO), HI)


def winding(s):
    """Clipped and winding further: the integral held (with anti-windup)."""
    e, raw, _ = law(s)
    return (raw > HI and KI * e > 0.0) or (raw < LO and KI * e < 0.0)


def closed_loop(held):
    """The closed loop's right-hand side with the integral held (``held``) or integrating."""
    def f(t, s):
        q, w, _, z = s
        e, _, u = law(s)
        return [w, (u - M * G * L * np.sin(q) - C * w) / J, 0.0 if held else KI * e,
                (e - z) / TF]
    return f


def switch(index):
    """An event of solve_ivp: raw - hi, raw - lo or e crossing zero (where the integral's
    law may change)."""
    def event(t, s):
        e, raw, _ = law(s)
        return (raw - HI, raw - LO, e)[index]
    event.terminal = True
    return event


def reference(anti_windup, times):
    """The closed loop's state (q, w, I, z) at ``times``: smooth pieces between the switches
    of the output's clipping and of the integral's law, each piece integrated by DOP853 at
    rtol 1e-10 up to the next switch (located by solve_ivp's events); the next piece starts
    1e-12 s past it (so the event is not found again) with the law of that side."""
    events = [switch(k) for k in range(3)]
    t, s, out = 0.0, np.zeros(4), []
    for _ in range(200):
        held = anti_windup and winding(s)
        piece = solve_ivp(closed_loop(held), (t, T_END), s, method="DOP853", rtol=RTOL,
                          atol=ATOL, dense_output=True, events=events)
        end = piece.t[-1]
        inside = (times >= t) & (times <= end)
        out.append((times[inside], piece.sol(times[inside])))
        if piece.status != 1:       # T_END reached
            break
        t = min(end + 1e-12, T_END)
        s = piece.sol(t)
    else:
        raise AssertionError("the reference switched 200 times (a sliding mode?)")
    at = np.concatenate([o[0] for o in out])
    states = np.concatenate([o[1] for o in out], axis=1)
    _, first = np.unique(at, return_index=True)
    assert np.array_equal(at[first], times)
    return states[:, first]


@pytest.fixture(scope="module")
def runs():
    """{anti_windup: (the run's result, the reference's states at its rows)}."""
    out = {}
    for anti_windup in (True, False):
        result = pendulum(anti_windup).simulate(T_END, output_step=STEP, rtol=RTOL, atol=ATOL)
        out[anti_windup] = result, reference(anti_windup, result.t)
    return out


@pytest.mark.parametrize("anti_windup", [True, False], ids=["anti-windup", "no anti-windup"])
def test_the_clipped_pid_follows_the_closed_loop_written_from_its_docstring(runs, anti_windup):
    """The hinge's angle and rate, the PID's integral and filter states and its output equal
    the reference's within the bounds, and the output really sits at both limits."""
    result, ref = runs[anti_windup]
    assert result.stats["stepper"] == "compiled"      # the PID kernel in the compiled loop
    q, w = result.joint("hinge").q, result.joint("hinge").v
    x = result.controller_states
    np.testing.assert_allclose(q, ref[0], rtol=0, atol=BOUND_Q)
    np.testing.assert_allclose(w, ref[1], rtol=0, atol=BOUND_Q / STEP)
    np.testing.assert_allclose(x[:, 0], ref[2], rtol=0, atol=BOUND_I)
    np.testing.assert_allclose(x[:, 1], ref[3], rtol=0, atol=BOUND_Q)
    u = np.array([law(s)[2] for s in ref.T])
    torque = result.force("motor").value
    # the output is kp e + I + D: D = kd (e - z) / tf amplifies z's error by kd / tf
    np.testing.assert_allclose(torque, u, rtol=0, atol=(KP + KD / TF) * BOUND_Q + BOUND_I)
    assert torque.max() == HI and torque.min() == LO          # clipped at both limits
    assert np.count_nonzero(torque == HI) >= 30               # for 0.3 s or more


def test_anti_windup_makes_a_difference_far_beyond_the_bounds(runs):
    """Without anti-windup the integral winds up while clipped: the overshoot grows from
    0.06 to 0.22 rad and the integral's peak from below to far above the gravity load (the
    reference's numbers, here asserted of the runs): a difference 1e5 times the bound, so
    the test above tells the two laws apart."""
    (held, ref_held), (free, ref_free) = runs[True], runs[False]
    q_held, q_free = held.joint("hinge").q, free.joint("hinge").q
    assert np.abs(q_held - q_free).max() > 1e5 * BOUND_Q
    overshoot_held, overshoot_free = q_held.max() - R, q_free.max() - R
    assert 0.0 < overshoot_held < 0.1 < 0.2 < overshoot_free
    assert ref_held[0].max() - R == pytest.approx(overshoot_held, abs=BOUND_Q)
    assert ref_free[0].max() - R == pytest.approx(overshoot_free, abs=BOUND_Q)
    # held while clipped, the integral comes up to the gravity load it must hold at rest
    # from below; unchecked, it winds past it (5.6 N m against 4.57 N m)
    load = M * G * L * np.sin(R)
    assert held.controller_states[:, 0].max() < load < load + 0.5 < \
        free.controller_states[:, 0].max()


def test_the_python_form_of_the_pid_is_the_same_law(runs):
    """The run stepped by scipy's solver from Python (compiled=False: the PID's derivative
    method, not the kernel) is the same closed loop: within the bound of the reference."""
    for anti_windup in (True, False):
        result = pendulum(anti_windup).simulate(T_END, output_step=STEP, rtol=RTOL,
                                                atol=ATOL, compiled=False)
        _, ref = runs[anti_windup]
        np.testing.assert_allclose(result.joint("hinge").q, ref[0], rtol=0, atol=BOUND_Q)
        np.testing.assert_allclose(result.controller_states[:, 0], ref[2], rtol=0,
                                   atol=BOUND_I)
