"""GearConstraint (issue 15): a rigid gear against the closed form of the reflected inertia, at
rest and ringing (equilibrium, linearization), and the gear's build-time rules."""
import numpy as np
import pytest

import mbd
from forces import Actuator, JointForce
from joints import Revolute

JM, JL, T = 0.01, 2.0, 1.5


def geared(ratio, drive=True, offset=0.0):
    """A motor (J_m about z) on a revolute to the ground, geared to a load (J_l) on its own
    revolute, q_load = ratio q_motor + offset (the load starting there), a constant torque T
    on the motor (``drive``); no gravity."""
    m = mbd.Model("gear")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    g2 = m.add_ground("g2", at=(1, 0, 0))
    motor = m.add_body("motor", mass=1.0, cg=(0, 0, 0), inertia=np.diag([1, 1, JM]))
    load = m.add_body("load", mass=1.0, cg=(1, 0, 0), inertia=np.diag([1, 1, JL]))
    a = m.add(Revolute("motor_axle", g, motor["cg"], axis=(0, 0, 1)))
    b = m.add(Revolute("load_axle", g2, load["cg"], axis=(0, 0, 1), q0=offset))
    m.add(mbd.GearConstraint("mesh", a, b, ratio=ratio, offset=offset))
    if drive:
        m.add(JointForce("drive", a, Actuator(T)))
    return m


@pytest.mark.parametrize("ratio", [0.2, -3.0])
def test_rigid_gear_has_the_reflected_inertia(ratio):
    system = geared(ratio).build()
    assert system.dof == 1 and len(system.machines) == 2
    res = system.simulate(1.0, output_step=0.1, rtol=1e-10, atol=1e-12)
    J = JM + JL * ratio ** 2                  # reflected to the motor
    qa, qb = res.joint("motor_axle").q, res.joint("load_axle").q
    np.testing.assert_allclose(qa, 0.5 * T / J * res.t ** 2, atol=1e-10)
    np.testing.assert_allclose(qb, ratio * qa, atol=1e-12)
    # the torque on the load's coordinate accelerates the load: J_l * ratio * qdd_a
    np.testing.assert_allclose(res.reaction("mesh").value, JL * ratio * T / J, rtol=1e-9)
    balance = res.energy_balance()
    assert np.max(np.abs(balance.work["mesh"])) < 1e-9     # an ideal gear does no work
    assert np.max(np.abs(balance.residual)) < 1e-9


def test_gear_rules_are_named():
    with pytest.raises(mbd.ModelError, match="GearConstraint 'g': ratio must be finite and "
                                             "nonzero"):
        mbd.GearConstraint("g", None, None, ratio=0.0)
    m = geared(2.0)
    hinge = [e for e in m.elements if e.name == "motor_axle"][0]
    m.add(mbd.GearConstraint("self", hinge, hinge, ratio=2.0))
    with pytest.raises(mbd.ModelError, match="'self': joint_a and joint_b are the same"):
        m.build()


def test_a_repeated_gear_is_redundant():
    m = geared(2.0)
    a, b = (e for e in m.elements if e.name in ("motor_axle", "load_axle"))
    m.add(mbd.GearConstraint("again", a, b, ratio=2.0))
    system = m.build()
    assert system.dof == 1
    assert len(system.redundant) == 1 and system.redundant[0].startswith("gear '")


def test_a_geared_spring_rests_and_rings_as_the_reflected_closed_form():
    """A torsion spring k on the motor, a torque T on the load: at rest the spring holds the
    load's torque referred to the motor, k q_a = ratio T (the gear does no work, so T dq_b =
    ratio T dq_a); the one mode rings at sqrt(k / (J_m + ratio^2 J_l))."""
    from forces import Spring
    ratio, k, T_load = -2.5, 40.0, 0.8
    m = geared(ratio, drive=False)
    a, b = (e for e in m.elements if e.name in ("motor_axle", "load_axle"))
    m.add(JointForce("torsion", a, Spring(c=k)))
    m.add(JointForce("load_torque", b, Actuator(T_load)))
    system = m.build()
    rest = mbd.equilibrium(system)
    q = rest.state.q
    qa = q[system.joints["motor_axle"].q_index[0]]
    qb = q[system.joints["load_axle"].q_index[0]]
    assert qa == pytest.approx(ratio * T_load / k, rel=1e-9)
    assert qb == pytest.approx(ratio * qa, rel=1e-9)
    modes = mbd.linearize(system, rest.state).modes()
    assert len(modes) == 1
    assert modes[0].frequency == pytest.approx(np.sqrt(k / (JM + ratio ** 2 * JL)) / (2 * np.pi),
                                               rel=1e-7)


@pytest.mark.parametrize("offset, written", [(0.0, ""), (0.25, " + 0.25"), (-0.5, " - 0.5")])
def test_the_report_writes_a_gears_offset(offset, written):
    """``mbd check``'s report (System.report) writes the whole relation q_b = ratio q_a +
    offset: an offset (a URDF mimic's, say) was left out, so the report read as if the load
    started from the motor's zero."""
    report = geared(-3.0, offset=offset).build().report()
    assert (f"gears: 'mesh' (Revolute 'load_axle' = -3 x Revolute 'motor_axle'{written})"
            in report)
