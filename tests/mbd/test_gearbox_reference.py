"""The seed 001 gearbox (issue 15): a motor inertia, an ElastoBacklash to a pinion, an ideal
gear of reduction 5 to a load inertia, the load driven by a torque -- against the
one-coordinate piecewise closed form of its relative angle through several backlash contacts,
and, without backlash, against the rigid gear's reflected inertia."""
import numpy as np
import pytest

import mbd
from forces import Actuator, ElastoBacklash, JointForce, RotationalForce
from joints import Revolute

JM, JP, JL = 0.02, 0.005, 1.5        # motor, pinion, load inertias about z, kg m^2
RATIO = 0.2                          # q_load = q_pinion / 5: a reduction of 5
C, B = 2.0e3, 0.02                   # backlash stiffness (N m/rad) and total backlash (rad)
T_LOAD, T_MOTOR = 3.0, 0.0           # N m
JE = JP + RATIO ** 2 * JL            # pinion and load, reflected to the pinion
MU = 1.0 / (1.0 / JE + 1.0 / JM)     # the relative angle's inertia
OMEGA = np.sqrt(C / MU)


def gearbox(b=B, c=C, d=0.0, t_motor=T_MOTOR, t_load=T_LOAD):
    m = mbd.Model("gearbox")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    g_load = m.add_ground("load_bearing", at=(0.3, 0, 0))
    motor = m.add_body("motor", mass=1.0, cg=(0, 0, 0), inertia=np.diag([1, 1, JM]))
    pinion = m.add_body("pinion", mass=0.2, cg=(0, 0, 0.1), inertia=np.diag([1, 1, JP]),
                        cs={"axle": (0, 0, 0)})
    load = m.add_body("load", mass=3.0, cg=(0.3, 0, 0), inertia=np.diag([1, 1, JL]))
    shaft = m.add(Revolute("motor_shaft", g, motor["cg"], axis=(0, 0, 1)))
    pin = m.add(Revolute("pinion_shaft", g, pinion["axle"], axis=(0, 0, 1)))
    out = m.add(Revolute("load_shaft", g_load, load["cg"], axis=(0, 0, 1)))
    m.add(RotationalForce("backlash", motor["cg"], pinion["axle"], ElastoBacklash(c=c, d=d, b=b),
                          axis=(0, 0, 1)))
    m.add(mbd.GearConstraint("mesh", pin, out, ratio=RATIO))
    if t_motor:
        m.add(JointForce("motor_torque", shaft, Actuator(t_motor)))
    m.add(JointForce("load_torque", out, Actuator(t_load)))
    return m.build()


def piecewise(t_end, a0=RATIO * T_LOAD / JE - T_MOTOR / JM, b=B):
    """The relative angle x = q_pinion - q_motor from rest at x = 0 (d = 0): flights x'' = a0
    (a parabola), contacts x'' = -(c/mu)(x - b/2) + a0 (a harmonic arc); returns the
    contacts' (begin, end) times and a function x(t)."""
    assert a0 > 0.0
    half = 0.5 * b
    s = a0 * MU / C                                  # the contact's static deflection
    t1 = np.sqrt(2.0 * half / a0)                    # first touch
    v1 = a0 * t1
    contact = 2.0 / OMEGA * (np.pi - np.arctan(v1 / (OMEGA * s)))
    flight = 2.0 * v1 / a0                           # out with -v1, back with +v1
    times = []
    t = t1
    while t < t_end:
        times.append((t, t + contact))
        t += contact + flight

    def x(tt):
        tt = np.atleast_1d(tt).astype(float)
        out = 0.5 * a0 * tt ** 2                     # the first flight from rest
        for begin, end in times:
            inside = (tt >= begin) & (tt < end)
            tau = tt[inside] - begin
            out[inside] = half + s - s * np.cos(OMEGA * tau) + v1 / OMEGA * np.sin(OMEGA * tau)
            after = (tt >= end) & (tt < end + flight)
            tau = tt[after] - end
            out[after] = half - v1 * tau + 0.5 * a0 * tau ** 2
        return out

    return times, x


def angles(t, x, t_motor=T_MOTOR, t_load=T_LOAD):
    """Motor and load angles from x: the momentum J_m q_m + J_e q_p grows as (T_m + r T_l)
    t^2 / 2 (the backlash's torques cancel), and q_p - q_m = x."""
    total = 0.5 * (t_motor + RATIO * t_load) * t ** 2
    q_p = (total + JM * x) / (JM + JE)
    return q_p - x, RATIO * q_p


@pytest.fixture(scope="module")
def run():
    return gearbox().simulate(0.5, output_step=0.002, rtol=1e-11, atol=1e-12)


def test_contacts_and_angles_follow_the_piecewise_closed_form(run):
    times, x = piecewise(run.t[-1])
    assert len(times) >= 4                       # several backlash contacts
    begins = [e.t for e in run.events if e.element == "backlash" and
              e.what == "upper contact begins"]
    ends = [e.t for e in run.events if e.element == "backlash" and e.what == "upper contact ends"]
    n = min(len(begins), len(ends))
    assert n >= 4
    expected = np.array(times[:n])
    np.testing.assert_allclose(begins[:n], expected[:, 0], atol=1e-8)
    np.testing.assert_allclose(ends[:n], expected[:, 1], atol=1e-8)
    q_m, q_l = angles(run.t, x(run.t))
    np.testing.assert_allclose(run.joint("motor_shaft").q, q_m, atol=1e-6)
    np.testing.assert_allclose(run.joint("load_shaft").q, q_l, atol=1e-6)
    np.testing.assert_allclose(run.joint("load_shaft").q,
                               RATIO * run.joint("pinion_shaft").q, atol=1e-9)


def test_without_damping_the_gear_and_the_backlash_conserve_energy(run):
    balance = run.energy_balance()
    assert np.max(np.abs(balance.residual)) < 1e-8
    assert np.max(np.abs(balance.work["mesh"])) < 1e-8


def test_damping_closes_the_energy_balance():
    r = gearbox(d=5.0).simulate(0.3, output_step=0.002, rtol=1e-10, atol=1e-12)
    balance = r.energy_balance()
    assert balance.dissipated["backlash"][-1] > 1e-4            # damping took energy out
    assert np.max(np.abs(balance.residual)) < 1e-8


def test_without_backlash_it_is_a_two_inertia_spring_and_tends_to_the_rigid_gear():
    """b = 0: x'' = -(c/mu) x + a0 from rest, x = (a0 mu / c)(1 - cos w t): exact; the motor
    then lags the rigid gear's T t^2 / (2 (J_m + J_p + J_l / 5^2)) by a deflection ~ 1/c."""
    t_end = 0.2
    errors = []
    for c in (1e3, 1e5):
        r = gearbox(b=0.0, c=c, t_motor=2.0, t_load=0.0).simulate(
            t_end, output_step=0.01, rtol=1e-11, atol=1e-13)
        mu_w = np.sqrt(c / MU)
        a0 = -2.0 / JM
        x = a0 * MU / c * (1.0 - np.cos(mu_w * r.t))
        q_m, q_l = angles(r.t, x, t_motor=2.0, t_load=0.0)
        np.testing.assert_allclose(r.joint("motor_shaft").q, q_m, atol=1e-9)
        np.testing.assert_allclose(r.joint("load_shaft").q, q_l, atol=1e-9)
        rigid = 2.0 * r.t ** 2 / (2.0 * (JM + JP + JL * RATIO ** 2))
        errors.append(np.max(np.abs(r.joint("motor_shaft").q - rigid)))
    assert errors[1] < 0.02 * errors[0]          # 100 times stiffer: about 100 times closer


def test_a_gear_on_a_loop_closing_joint_drives_the_loop():
    """The load on two coaxial bearings (a closed loop: the second bearing is cut, five of its
    closure rows redundant) and the gear tied to the cut bearing's coordinate: the same
    motion as the plain gearbox, two degrees of freedom."""
    m = mbd.Model("gearbox_loop")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    g_load = m.add_ground("load_bearing", at=(0.3, 0, 0))
    g_far = m.add_ground("far_bearing", at=(0.3, 0, 0.2))
    motor = m.add_body("motor", mass=1.0, cg=(0, 0, 0), inertia=np.diag([1, 1, JM]))
    pinion = m.add_body("pinion", mass=0.2, cg=(0, 0, 0.1), inertia=np.diag([1, 1, JP]),
                        cs={"axle": (0, 0, 0)})
    load = m.add_body("load", mass=3.0, cg=(0.3, 0, 0), inertia=np.diag([1, 1, JL]),
                      cs={"far": (0.3, 0, 0.2)})
    m.add(Revolute("motor_shaft", g, motor["cg"], axis=(0, 0, 1)))
    pin = m.add(Revolute("pinion_shaft", g, pinion["axle"], axis=(0, 0, 1)))
    out = m.add(Revolute("load_shaft", g_load, load["cg"], axis=(0, 0, 1)))
    far = m.add(Revolute("far_shaft", g_far, load["far"], axis=(0, 0, 1)))
    m.add(RotationalForce("backlash", motor["cg"], pinion["axle"], ElastoBacklash(c=C, d=0.0, b=B),
                          axis=(0, 0, 1)))
    m.add(mbd.GearConstraint("mesh", pin, far, ratio=RATIO))
    m.add(JointForce("load_torque", out, Actuator(T_LOAD)))
    system = m.build()
    assert system.cut_joints == ["far_shaft"] and system.dof == 2
    r = system.simulate(0.2, output_step=0.002, rtol=1e-11, atol=1e-12)
    times, x = piecewise(r.t[-1])
    begins = [e.t for e in r.events if e.what == "upper contact begins"]
    np.testing.assert_allclose(begins, [b for b, _ in times][:len(begins)], atol=1e-8)
    assert len(begins) == 2
    q_m, q_l = angles(r.t, x(r.t))
    np.testing.assert_allclose(r.joint("motor_shaft").q, q_m, atol=1e-6)
    np.testing.assert_allclose(r.joint("far_shaft").q, q_l, atol=1e-6)
    np.testing.assert_allclose(r.joint("load_shaft").q, q_l, atol=1e-6)
    assert np.max(np.abs(r.energy_balance().residual)) < 1e-8
