"""The seed's gearbox: a motor, an elastic backlash, an ideal gear of reduction 5 and a load
driven by a torque (the ElastoBacklash page: "combined with an ideal gear to model a gearbox
with backlash, elasticity and damping").

Teaches: ``mbd.GearConstraint`` (Simscape's Gear Constraint, Adams' COUPLER): q_load =
q_pinion / 5 as a constraint row, its reaction the torque on the load's coordinate;
``ElastoBacklash`` on a ``RotationalForce`` between the motor and the pinion shafts (the
relative twist about their common axis); contacts located exactly and logged; the closed form
of the relative angle, piece by piece.

The motor (J_m = 0.02 kg m^2) and the pinion (J_p = 0.005) turn on one axis; the backlash
between them is b = 0.02 rad with stiffness c = 2000 N m/rad and no damping; the gear
(ratio 0.2: the load turns a fifth as fast) drives the load (J_l = 1.5). A constant torque
T_l = 3 N m on the load turns the whole train from rest. Reflected to the pinion the load
weighs r^2 J_l = 0.06 kg m^2, so J_e = J_p + r^2 J_l = 0.065 kg m^2, and the relative angle
x = q_pinion - q_motor has the inertia mu = 1 / (1/J_e + 1/J_m):

* in the backlash (|x| < b/2): x'' = a0 = r T_l / J_e, a parabola from rest;
* in contact (x > b/2): x'' = -(c / mu)(x - b/2) + a0, a harmonic arc at w = sqrt(c / mu);
* without damping the pinion leaves the tooth at the speed it struck it and the backlash
  pulls it back across in 2 v1 / a0: a train of equal contacts of (2/w)(pi - atan(v1 /
  (w s))), s = a0 mu / c.

Meanwhile the motor and the pinion share the load's drive: J_m q_m + J_e q_p = r T_l t^2 / 2.

Run: ``python examples/gearbox.py`` -- prints each contact's begin and end against the closed
form and the largest difference of the motor and load angles from it;
``python -m mbd run examples/gearbox.py --animate`` writes the animation.
"""
import numpy as np

import mbd
from forces import Actuator, ElastoBacklash, JointForce, RotationalForce
from joints import Revolute

JM, JP, JL = 0.02, 0.005, 1.5        # motor, pinion, load inertias about z, kg m^2
RATIO = 0.2                          # q_load = RATIO q_pinion: a reduction of 5
C, B = 2.0e3, 0.02                   # backlash stiffness (N m/rad) and total backlash (rad)
T_LOAD = 3.0                         # N m on the load
JE = JP + RATIO ** 2 * JL            # pinion and load, reflected to the pinion
MU = 1.0 / (1.0 / JE + 1.0 / JM)     # the relative angle's inertia
OMEGA = np.sqrt(C / MU)              # contact frequency, rad/s
A0 = RATIO * T_LOAD / JE             # the relative angle's acceleration in the backlash

T_END, OUTPUT_STEP, RTOL, ATOL = 0.5, 0.002, 1e-11, 1e-12


def build_model():
    """Motor and pinion on coaxial revolutes at the origin, the load on its own at x = 0.3 m,
    the backlash between motor and pinion, the gear from the pinion to the load."""
    m = mbd.Model("gearbox")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    g_load = m.add_ground("load_bearing", at=(0.3, 0, 0))
    motor = m.add_body("motor", mass=1.0, cg=(0, 0, 0), inertia=np.diag([1, 1, JM]),
                       cs={"housing": (0, 0, -0.12)})
    pinion = m.add_body("pinion", mass=0.2, cg=(0, 0, 0.03), inertia=np.diag([1, 1, JP]),
                        cs={"axle": (0, 0, 0)})
    load = m.add_body("load", mass=3.0, cg=(0.3, 0, 0.1), inertia=np.diag([1, 1, JL]),
                      cs={"axle": (0.3, 0, 0)})
    # pictures only: the dynamics ignore the shapes; the gear draws its own wheels (a ring
    # gear round the pinion: ratio > 0 turns both the same way)
    try:
        import viz
    except ImportError:
        pass
    else:
        motor.add_shape(viz.Box((0.12, 0.12, 0.16), color="steelblue"), cs="housing")
        pinion.add_shape(viz.Cylinder(0.012, 0.06, color="darkorange"), cs="cg")
        load.add_shape(viz.Cylinder(0.025, 0.2, color="seagreen"), cs="cg")
    m.add(Revolute("motor_shaft", g, motor["cg"], axis=(0, 0, 1)))
    pin = m.add(Revolute("pinion_shaft", g, pinion["axle"], axis=(0, 0, 1)))
    out = m.add(Revolute("load_shaft", g_load, load["axle"], axis=(0, 0, 1)))
    m.add(RotationalForce("backlash", motor["cg"], pinion["axle"],
                          ElastoBacklash(c=C, d=0.0, b=B), axis=(0, 0, 1)))
    m.add(mbd.GearConstraint("mesh", pin, out, ratio=RATIO))
    m.add(JointForce("load_torque", out, Actuator(T_LOAD)))
    return m


def contacts(t_end):
    """[(begin, end)] of every contact up to t_end, from the piecewise closed form."""
    s = A0 * MU / C
    t1 = np.sqrt(B / A0)                              # the first touch, x = b/2 from rest
    v1 = A0 * t1
    duration = 2.0 / OMEGA * (np.pi - np.arctan(v1 / (OMEGA * s)))
    flight = 2.0 * v1 / A0
    out, t = [], t1
    while t < t_end:
        out.append((t, t + duration))
        t += duration + flight
    return out


def relative_angle(t):
    """x(t) from the closed form, piece by piece."""
    s = A0 * MU / C
    v1 = A0 * np.sqrt(B / A0)
    flight = 2.0 * v1 / A0
    t = np.atleast_1d(np.asarray(t, dtype=float))
    x = 0.5 * A0 * t ** 2
    for begin, end in contacts(t.max() + 1.0):
        inside = (t >= begin) & (t < end)
        tau = t[inside] - begin
        x[inside] = 0.5 * B + s - s * np.cos(OMEGA * tau) + v1 / OMEGA * np.sin(OMEGA * tau)
        after = (t >= end) & (t < end + flight)
        tau = t[after] - end
        x[after] = 0.5 * B - v1 * tau + 0.5 * A0 * tau ** 2
    return x


def angles(t):
    """(motor, load) angles, rad: the momentum J_m q_m + J_e q_p = r T_l t^2 / 2 and x."""
    x = relative_angle(t)
    q_p = (0.5 * RATIO * T_LOAD * np.asarray(t) ** 2 + JM * x) / (JM + JE)
    return q_p - x, RATIO * q_p


def main(t_end=T_END):
    """Simulate; print the contacts and the angles against the closed form; return the
    result."""
    result = build_model().build().simulate(t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    begins = [e.t for e in result.events if e.what == "upper contact begins"]
    ends = [e.t for e in result.events if e.what == "upper contact ends"]
    print("contact     mbd begins     closed form      mbd ends       closed form")
    for k, ((b0, e0), b, e) in enumerate(zip(contacts(t_end), begins, ends)):
        print(f"{k + 1:>7}  {b:.10f} s  {b0:.10f} s  {e:.10f} s  {e0:.10f} s")
    q_m, q_l = angles(result.t)
    print(f"largest difference from the closed form: motor "
          f"{np.max(np.abs(result.joint('motor_shaft').q - q_m)):.2e} rad, load "
          f"{np.max(np.abs(result.joint('load_shaft').q - q_l)):.2e} rad")
    print(f"the gear's torque on the load shaft: {result.reaction('mesh').value[-1]:+.4f} N m "
          f"at t = {result.t[-1]:g} s")
    return result


if __name__ == "__main__":
    main()
