"""Linearization through continuous controllers with states (SPEC §6, §9): the linear
model's state is [z, w, x_c], the controllers' states after the mechanism's, the loop closed.

- A pendulum (J th'' = -m g L sin th + u) held hanging by a PID with a filtered derivative
  (u = kp e + I + kd (e - f) / tf, I' = ki e, f' = (e - f) / tf, e = r - th): with
  C(s) = kp + ki / s + kd s / (tf s + 1), the closed loop's characteristic polynomial
  (J s^2 + m g L + C(s)) s (tf s + 1) is

      tf J s^4 + J s^3 + (tf m g L + kp tf + kd) s^2 + (m g L + kp + ki tf) s + ki,

  whose roots are A's eigenvalues; B, C and D of the setpoint and of the PID's output and
  states follow from the same formulas.
- A StateSpace controller (x_c' = A_c x_c + B_c y, u = C_c x_c + D_c y) on a double pendulum:
  the closed loop is the block composition of the plant linearized alone (the actuator's
  value its input, the sensors its outputs) and the controller's matrices.
- The closed loop's linear response expm(A t) x0 against a run from a small perturbation.
"""
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.linalg

import mbd
from forces import Actuator, JointForce
from joints import Revolute

M, L, J_CG, G = 1.0, 1.0, 1e-6, 9.81      # kg, m, kg m^2 (about the CG), m/s^2
J = J_CG + M * L ** 2                      # kg m^2, about the hinge
KP, KI, KD, TF = 40.0, 30.0, 5.0, 0.02     # N m/rad, N m/(rad s), N m s/rad, s


def pid_pendulum(q0=0.0, limits=(-np.inf, np.inf), anti_windup=True):
    """A point mass M on a massless arm L hanging from a hinge about y (gravity -z: the
    gravity torque is -M G L sin q), a PID on the hinge's angle with the setpoint an Input
    ``ref`` (0) driving an Actuator torque on the hinge."""
    model = mbd.Model("pid_pendulum")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    arm = model.add_body("arm", mass=M, cg=(0.0, 0.0, -L), inertia=np.eye(3) * J_CG,
                         cs={"pivot": (0.0, 0.0, 0.0)})
    hinge = model.add(Revolute("hinge", ground, arm["pivot"], axis=(0.0, 1.0, 0.0), q0=q0))
    model.add(mbd.Sensor("angle", "hinge.q"))
    model.add(mbd.Input("ref", 0.0))
    pid = model.add(mbd.PID("pid", "angle", setpoint="ref", kp=KP, ki=KI, kd=KD, tf=TF,
                            limits=limits, anti_windup=anti_windup))
    model.add(JointForce("motor", hinge, Actuator(pid)))
    return model.build()


def characteristic_roots():
    """The roots of the closed loop's characteristic polynomial (module docstring)."""
    return np.roots([TF * J, J, TF * M * G * L + KP * TF + KD, M * G * L + KP + KI * TF, KI])


def by_value(lams):
    return np.array(sorted(lams, key=lambda z: (round(z.real, 6), z.imag)))


def test_a_pid_held_pendulum_has_the_closed_loop_polynomial_roots_as_eigenvalues():
    system = pid_pendulum()
    lin = mbd.linearize(system, system.initial_state(), inputs=["ref"],
                        outputs=["pid", "pid.x0", "pid.x1", "angle"])
    assert lin.state_names == ["hinge.q", "hinge.v", "pid.x0", "pid.x1"]
    lams, roots = by_value(lin.eigenvalues()), by_value(characteristic_roots())
    np.testing.assert_allclose(lams, roots, rtol=1e-6)
    assert np.abs(lams - roots).max() <= 1e-6 * np.abs(roots).max()
    # the modes are the closed loop's: one per pair and per real eigenvalue, all stable
    modes = lin.modes()
    assert len(modes) == 3 and lin.stable
    np.testing.assert_allclose(sorted(m.frequency for m in modes),
                               sorted({round(abs(r) / (2 * np.pi), 9) for r in roots}),
                               rtol=1e-6)
    # the setpoint drives the torque (kp + kd / tf) / J, the integral ki, the filter 1 / tf
    gain = KP + KD / TF
    np.testing.assert_allclose(lin.B[:, 0], [0.0, gain / J, KI, 1.0 / TF], rtol=1e-9,
                               atol=1e-9)
    # u = kp e + I + kd (e - f) / tf with e = r - q; the states; the sensor
    np.testing.assert_allclose(lin.C, [[-gain, 0.0, 1.0, -KD / TF], [0, 0, 1, 0],
                                       [0, 0, 0, 1], [1, 0, 0, 0]], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(lin.D[:, 0], [gain, 0.0, 0.0, 0.0], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(lin.controller_states, [0.0, 0.0])
    # the second-order form holds the controller's states: K = m g L + kp + kd / tf
    np.testing.assert_allclose(lin.K, [[M * G * L + gain]], rtol=1e-9)


@dataclass(frozen=True)
class StateWithControllers(mbd.State):
    """A State that carries the controllers' states (as a Result's row has them)."""

    controller_states: np.ndarray = None


def test_the_operating_controller_states_are_the_given_ones_else_the_start_ones():
    """A PID clipped at its operating integral (I = 10 N m > 5 N m, no anti-windup) gives no
    feedback: the hinge's row is gravity's alone, the integral still integrates e."""
    system = pid_pendulum(limits=(-5.0, 5.0), anti_windup=False)
    start = system.initial_state()
    free = mbd.linearize(system, start)
    np.testing.assert_allclose(free.eigenvalues()[np.argsort(free.eigenvalues().imag)],
                               by_value(characteristic_roots())[
                                   np.argsort(by_value(characteristic_roots()).imag)],
                               rtol=1e-6)
    for clipped in (mbd.linearize(system, start, controller_states=[10.0, 0.0]),
                    mbd.linearize(system, StateWithControllers(start.t, start.q, start.v,
                                                               np.array([10.0, 0.0])))):
        np.testing.assert_array_equal(clipped.controller_states, [10.0, 0.0])
        np.testing.assert_allclose(clipped.A, [[0, 1, 0, 0], [-M * G * L / J, 0, 0, 0],
                                               [-KI, 0, 0, 0], [-1 / TF, 0, 0, -1 / TF]],
                                   rtol=1e-9, atol=1e-9)


# ------------------------------------------------------------------ a StateSpace on 2 DOF

L1, L2, M1, M2 = 0.8, 0.6, 1.5, 0.7        # m, m, kg, kg
A_C = np.array([[-3.0, 1.0], [-2.0, -5.0]])
B_C = np.array([[1.0, -2.0, 0.5], [0.3, 4.0, -1.0]])    # reads [a1, tip, ref]
C_C = np.array([[2.0, -1.5]])
D_C = np.array([[-30.0, -12.0, 8.0]])
Q_OP, V_OP = np.array([0.3, -0.2]), np.array([0.5, -0.4])   # rad, rad/s
XC_OP, REF = np.array([0.1, -0.05]), 0.25                   # the controller's states, ref


def double_pendulum(drive):
    """Two arms (masses M1, M2 at their ends, L1, L2 long; drawn hanging, in the model's
    frame) on hinges about y (gravity -z);
    Sensors of the upper hinge's angle (``a1``) and the lower arm's tip x (``tip``), an
    Input ``ref`` (REF) and a torque ``motor`` on the upper hinge: Actuator(drive(model)),
    drive given the model (it may add a controller)."""
    model = mbd.Model("double")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    upper = model.add_body("upper", mass=M1, cg=(0.0, 0.0, -L1), inertia=np.eye(3) * 1e-3,
                           cs={"pivot": (0.0, 0.0, 0.0), "elbow": (0.0, 0.0, -L1)})
    lower = model.add_body("lower", mass=M2, cg=(0.0, 0.0, -L1 - L2),
                           inertia=np.eye(3) * 1e-3,
                           cs={"pivot": (0.0, 0.0, -L1), "tip": (0.0, 0.0, -L1 - L2)})
    h1 = model.add(Revolute("h1", ground, upper["pivot"], axis=(0.0, 1.0, 0.0)))
    model.add(Revolute("h2", upper["elbow"], lower["pivot"], axis=(0.0, 1.0, 0.0)))
    model.add(mbd.Sensor("a1", "h1.q"))
    model.add(mbd.Sensor("tip", "lower.tip.x"))
    model.add(mbd.Input("ref", REF))
    model.add(JointForce("motor", h1, Actuator(drive(model))))
    return model.build()


def test_a_state_space_loop_is_the_block_composition_of_plant_and_controller():
    state = mbd.State(0.0, Q_OP, V_OP)
    # the plant's sensors at the state (a CS about y: (0, 0, -l) turns to (-l sin, 0, ...)),
    # and the torque the controller gives there: the open loop is held at it
    y_op = np.array([Q_OP[0], -L1 * np.sin(Q_OP[0]) - L2 * np.sin(Q_OP.sum()), REF])
    u_op = float((C_C @ XC_OP + D_C @ y_op)[0])
    plant = double_pendulum(lambda model: u_op)
    open_loop = mbd.linearize(plant, state, inputs=["motor"], outputs=["a1", "tip"])
    Ap, Bp, Cp = open_loop.A, open_loop.B, open_loop.C
    By, Br, Dy, Dr = B_C[:, :2], B_C[:, 2:], D_C[:, :2], D_C[:, 2:]

    closed = double_pendulum(lambda model: model.add(
        mbd.StateSpace("ss", A_C, B_C, C_C, D_C, inputs=["a1", "tip", "ref"])))
    lin = mbd.linearize(closed, state, inputs=["ref", "motor"],
                        outputs=["ss", "ss.x1", "tip"], controller_states=XC_OP)
    assert lin.state_names == ["h1.q", "h2.q", "h1.v", "h2.v", "ss.x0", "ss.x1"]
    expected_A = np.block([[Ap + Bp @ Dy @ Cp, Bp @ C_C], [By @ Cp, A_C]])
    # the setpoint through the controller; a torque added to the one it drives: the plant's
    expected_B = np.vstack([np.hstack([Bp @ Dr, Bp]), np.hstack([Br, np.zeros((2, 1))])])
    expected_C = np.vstack([np.hstack([Dy @ Cp, C_C]), [[0, 0, 0, 0, 0, 1]],
                            np.hstack([Cp[1:], np.zeros((1, 2))])])
    for got, want in ((lin.A, expected_A), (lin.B, expected_B), (lin.C, expected_C)):
        assert np.abs(got - want).max() <= 1e-7 * np.abs(want).max()
    np.testing.assert_allclose(lin.D, [[Dr[0, 0], 0.0], [0.0, 0.0], [0.0, 0.0]], atol=1e-12)
    # the plant's own B through the controller's feedthrough was not trivial
    assert np.abs(Bp @ Dy @ Cp).max() > 1.0 and np.abs(Ap[2:, :2]).max() > 1.0


# ------------------------------------------------------------------ against a run

def test_the_closed_loop_linear_response_matches_a_run_from_a_small_tilt():
    """From th = 1e-4 rad (gravity's nonlinear remainder ~ th^2 / 6 ~ 2e-9 of the linear
    terms; the run at rtol 1e-11), the run's hinge angle, rate and PID states equal
    expm(A t) x0 to 1e-6 of each one's largest value (they agree to ~4e-10)."""
    tilt = 1e-4
    system = pid_pendulum(q0=tilt)
    hanging = pid_pendulum()
    lin = mbd.linearize(hanging, hanging.initial_state())
    result = system.simulate(2.0, output_step=0.01, rtol=1e-11, atol=1e-15)
    x0 = np.array([tilt, 0.0, 0.0, 0.0])
    linear = np.array([scipy.linalg.expm(lin.A * t) @ x0 for t in result.t])
    run = np.column_stack([result.q[:, 0], result.v[:, 0], result.controller_states])
    for k, name in enumerate(lin.state_names):
        scale = np.abs(linear[:, k]).max()
        assert scale > 0.0
        assert np.abs(run[:, k] - linear[:, k]).max() <= 1e-6 * scale, name
    # and the response does decay at the slowest eigenvalue's rate, as linearize says
    slowest = max(lin.eigenvalues().real)
    assert abs(result.q[-1, 0]) < 2 * tilt * np.exp(slowest * result.t[-1]) + 1e-12


# ------------------------------------------------------------------ bad input

def test_unknown_controller_states_and_wrong_operating_states_are_named():
    system = pid_pendulum()
    start = system.initial_state()
    with pytest.raises(ValueError, match=r"output 'pid\.x7'.*controller's state "
                                         r"\(\['pid\.x0', 'pid\.x1'\]\)"):
        mbd.linearize(system, start, outputs=["pid.x7"])
    with pytest.raises(ValueError, match=r"output 'pod\[0\]'.*controller's output \(\['pid'\]"):
        mbd.linearize(system, start, outputs=["pod[0]"])
    with pytest.raises(ValueError, match=r"controller_states must have 2 values "
                                         r"\(\['pid\.x0', 'pid\.x1'\]\), got 3"):
        mbd.linearize(system, start, controller_states=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="controller_states must be finite"):
        mbd.linearize(system, start, controller_states=[np.nan, 0.0])


def test_equilibrium_refuses_controller_states_naming_them_and_pointing_to_linearize():
    with pytest.raises(ValueError, match=r"equilibrium: the continuous controllers \['pid'\] "
                                         r"have states.*mbd\.linearize"):
        mbd.equilibrium(pid_pendulum())
