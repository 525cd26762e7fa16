"""examples/ur5_backlash_pid.py shows what it claims, each claim against a computation of its
own: Pinocchio's model of the same URDF (the test extra), scipy, and the laws written out.

* The import is the URDF's robot: the links' masses, and the edit adds one body and one dof.
* The fall through the dead zone: until the first contact the gear carries nothing, and the
  arm, the free rotor, the PID and the PD loops are an ODE written out here -- Pinocchio's
  ABA of the UR5 (the rotor's mass on the upper arm) with the PD torques and the motor's
  reaction, the rotor's axial equation J_M (q_shoulder'' + q_motor'') = u, the PID's
  integral -- integrated by scipy: mbd's first contact, its strike speed and the joint
  angles there agree with it.
* The gear crosses the whole dead zone (-b/2 to +b/2) with no torque, then stays on the upper
  flank (gravity preloads it): every contact is an upper one, the last never ends, and at
  rest |x| > b/2, deflected by the held torque over c.
* The held pose: the motor's torque and every PD joint's torque equal Pinocchio's RNEA
  (the static holding torques) at the final state; the PD joints sag by that torque over kp;
  the elbow's error decays to zero.
* The docstring's and the printout's numbers are the run's.
"""
import contextlib
import io

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from tests.test_examples import load

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

pin = pytest.importorskip("pinocchio")
ur5 = load("ur5_backlash_pid")
JOINTS = list(ur5.POSE)          # the URDF's six joints, base to tool
ELBOW, SHOULDER = JOINTS.index("elbow_joint"), JOINTS.index("shoulder_lift_joint")
G = 9.81                          # m/s^2, from_urdf's default gravity (-z); Pinocchio's too


@pytest.fixture(scope="module")
def run():
    """main()'s result, its printout and the model."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ur5.main()
    return result, out.getvalue(), ur5.build_model()


@pytest.fixture(scope="module")
def robot():
    """Pinocchio's model of the same URDF with the example's rotor added to the upper arm: its
    mass on the elbow axis and its inertia across the axis (about the axis it turns freely on
    its bearing, :func:`free_flight`), and its data."""
    path, _ = ur5.urdf_path()
    model = pin.buildModelFromUrdf(path)
    assert [model.names[i] for i in range(1, model.njoints)] == JOINTS
    elbow_id = model.getJointId("elbow_joint")
    at = model.jointPlacements[elbow_id]               # the elbow frame in the upper arm's
    axis = at.rotation @ np.array([0.0, 1.0, 0.0])     # the URDF's elbow axis, y
    assert np.allclose(axis, [0.0, 1.0, 0.0])
    across = 0.5 * ur5.JM * (np.eye(3) - np.outer(axis, axis))
    model.inertias[model.parents[elbow_id]] += pin.Inertia(ur5.M_MOTOR, at.translation, across)
    return model, model.createData()


def q_of(result, row):
    return np.array([result.joint(name).q[row] for name in JOINTS])


def holding_torques(robot, q):
    """The joint torques that hold the arm at rest at q (N m): Pinocchio's RNEA, q' = q'' = 0."""
    model, data = robot
    return pin.rnea(model, data, q, np.zeros(6), np.zeros(6)).copy()


def test_the_import_is_the_urdfs_robot_and_the_edit_adds_the_motor(run, robot):
    result, _, model = run
    system = model.build()
    assert system.nv == 7 and system.nq == 7            # six URDF joints and the motor shaft
    links = {b.name: b.mass for b in model.bodies if b.name != "motor"}
    pin_model = robot[0]
    # each moving link's body frame in Pinocchio, on the joint that carries its (merged) mass
    carried = {f.name: f.parentJoint for f in pin_model.frames
               if f.type == pin.FrameType.BODY and f.name in links}
    assert sorted(carried) == sorted(links) and len(set(carried.values())) == 6
    upper_arm = carried["upper_arm_link"]        # Pinocchio's carries the rotor too (robot())
    assert links == pytest.approx({name: pin_model.inertias[j].mass - (
        ur5.M_MOTOR if j == upper_arm else 0.0) for name, j in carried.items()}, rel=1e-12)
    assert model.bodies[-1].name == "motor" and model.bodies[-1].mass == ur5.M_MOTOR
    assert result.stats["stepper"] == "compiled"


def free_flight(robot):
    """Until the first contact: scipy's integration of the arm (Pinocchio's ABA), the rotor,
    the PID and the PD loops, from the example's start, stopped where x = q_elbow - q_motor
    reaches b/2. State [q (6), v (6), q_motor, v_motor, PID integral]."""
    model, data = robot
    held = [JOINTS.index(name) for name in ur5.HOLD]
    kp = np.array([ur5.HOLD[name][0] for name in ur5.HOLD])
    kd = np.array([ur5.HOLD[name][1] for name in ur5.HOLD])
    ref = np.array([ur5.POSE[name] for name in JOINTS])

    def rhs(t, y):
        q, v, vm, integral = y[:6], y[6:12], y[13], y[14]
        error = ref[ELBOW] - q[ELBOW]
        u = np.clip(ur5.KP * error + integral - ur5.KD * v[ELBOW], -ur5.EFFORT, ur5.EFFORT)
        tau = np.zeros(6)
        tau[held] = -kp * (q[held] - ref[held]) - kd * v[held]
        tau[SHOULDER] -= u            # the motor's stator is on the upper arm
        a = pin.aba(model, data, q, v, tau)
        # the rotor's axial equation: the upper arm turns about the elbow's (parallel) axis
        # at q_shoulder' (the pan turns it about z, perpendicular to it)
        am = u / ur5.JM - a[SHOULDER]
        return np.concatenate([v, a, [vm, am, ur5.KI * error]])

    def contact(t, y):
        return y[ELBOW] - y[12] - 0.5 * ur5.B
    contact.terminal, contact.direction = True, 1.0
    y0 = np.zeros(15)
    y0[:6] = ref
    y0[12] = ref[ELBOW] + 0.5 * ur5.B - ur5.START_GAP
    return solve_ivp(rhs, (0.0, 0.05), y0, method="DOP853", rtol=1e-12, atol=1e-14,
                     events=contact)


def test_the_fall_through_the_dead_zone_is_pinocchios_free_flight(run, robot):
    result, _, _ = run
    sol = free_flight(robot)
    t_contact, y = sol.t_events[0][0], sol.y_events[0][0]
    first = result.force("gear").contacts()[0]
    assert first[2] == 1 and first[0] == pytest.approx(t_contact, abs=1e-9)
    row = np.flatnonzero(result.t == first[0])[0]           # a row at every event
    assert q_of(result, row) == pytest.approx(y[:6], abs=1e-9)
    strike = y[6 + ELBOW] - y[13]
    assert result.force("gear").xdot[row] == pytest.approx(strike, rel=1e-5)
    assert 1.0 < strike < 1.1 and 0.0125 < t_contact < 0.0135        # the docstring's


def test_the_gear_crosses_the_whole_dead_zone_then_stays_on_the_upper_flank(run):
    result, _, _ = run
    gear = result.force("gear")
    b = ur5.B
    # starts on the lower flank, START_GAP inside the dead zone: the start's round-off
    # (a 1e-13 relative perturbation of q ~ 1.5 rad under --perturb) is far below START_GAP
    assert gear.x[0] == pytest.approx(-0.5 * b + ur5.START_GAP, abs=1e-3 * ur5.START_GAP)
    contacts = gear.contacts()
    before = result.t < contacts[0][0]
    assert np.all(gear.value[before] == 0.0)                       # no torque in the gap
    assert np.all(np.diff(gear.x[before]) > 0.0)                   # the forearm falls through
    assert gear.x[result.t == contacts[0][0]][0] == pytest.approx(0.5 * b, abs=1e-12)
    assert all(side == 1 for _, _, side in contacts)               # never the lower flank
    assert len(contacts) == 2 and np.isnan(contacts[-1][1])        # one bounce, then held
    assert not any(e.element == "gear" and e.what.startswith("lower")
                   for e in result.events)
    landed = result.t > contacts[-1][0]
    assert np.all(gear.x[landed] > 0.5 * b)
    torque = result.force("motor_torque").value[-1]
    assert gear.x[-1] - 0.5 * b == pytest.approx(-torque / ur5.C, rel=1e-9)  # |x| > b/2


def test_the_held_torques_are_pinocchios_rnea(run, robot):
    result, _, model = run
    q = q_of(result, -1)
    assert np.abs(result.v[-1]).max() < 1e-8                       # at rest
    hold = holding_torques(robot, q)
    assert result.force("motor_torque").value[-1] == pytest.approx(hold[ELBOW], abs=1e-6)
    assert ur5.gravity_torque(model, result) == pytest.approx(-hold[ELBOW], abs=1e-9)
    for name, (kp, _) in ur5.HOLD.items():
        k = JOINTS.index(name)
        assert result.force(f"{name}_torque").value[-1] == pytest.approx(hold[k], abs=1e-6)
        # the PD's sag: the holding torque over kp
        assert q[k] - ur5.POSE[name] == pytest.approx(-hold[k] / kp, abs=1e-9)
    assert hold[ELBOW] == pytest.approx(-13.6888, abs=1e-4)        # the docstring's
    assert (q[SHOULDER] - ur5.POSE["shoulder_lift_joint"]) * 1e3 == pytest.approx(9.67,
                                                                                  abs=5e-3)


def test_the_elbow_error_decays_to_zero(run):
    result, _, _ = run
    error = np.abs(result.joint("elbow_joint").q - ur5.POSE["elbow_joint"])
    peak = error.argmax()
    assert 0.08 < result.t[peak] < 0.12 and error[peak] == pytest.approx(11.8e-3, abs=0.1e-3)
    at = {t: error[np.searchsorted(result.t, t)] for t in (0.5, 1.0, ur5.T_END)}
    assert at[0.5] < 1e-4 and at[1.0] < 1e-6 and at[ur5.T_END] < 1e-9
    # the rigid loop's roots, the docstring's decay rate
    roots = np.roots([ur5.JM + 0.84, ur5.KD, ur5.KP, ur5.KI])
    assert sorted(np.round(roots.real, 1)) == pytest.approx([-17.3, -13.6, -13.6], abs=0.2)


def test_the_printout_states_the_runs_numbers(run):
    result, out, _ = run
    gear = result.force("gear")
    (t1, t2, _), (t3, _, _) = gear.contacts()
    assert f"in {t1 * 1e3:.3f} ms, the gear torque 0 N m meanwhile" in out
    assert f"upper contact from {t1 * 1e3:8.3f} ms to {t2 * 1e3:.3f} ms" in out
    assert f"upper contact from {t3 * 1e3:8.3f} ms to the end" in out
    torque = result.force("motor_torque").value[-1]
    assert f"the motor's torque {torque:+.4f} N m" in out and "-13.6888 N m" in out
    assert f"x = {gear.x[-1] * 1e3:+.4f} mrad" in out and "+3.1844 mrad" in out
    doc = ur5.__doc__
    for number in (f"{t1 * 1e3:.1f} to {t2 * 1e3:.1f} ms", f"at {t3 * 1e3:.1f} ms",
                   "-13.6888 N m", "3.184 mrad"):
        assert number in doc, number
