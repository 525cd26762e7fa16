"""A pendulum held at an angle by a PD controller, against the closed form of its linearised
equation.

Teaches: a static controller (SPEC §9): ``mbd.Gain("pd", [-kp, -kd], [angle, rate],
offset=kp q_ref)`` reads two Sensors (the hinge's angle and rate) at every instant and gives
the torque u = -kp (q - q_ref) - kd q', applied by ``Actuator(gain)`` on the hinge; and the
steady offset a P term leaves against gravity.

A bob (m = 1 kg, J_cg = 1e-3 kg m^2 about the axis) hangs l = 0.5 m below a Revolute about y
(gravity -z); q = 0 hangs straight down, and q > 0 swings the bob towards -x, so gravity's
torque about the axis is -m g l sin q and

    J q'' = -m g l sin q - kp (q - q_ref) - kd q',    J = J_cg + m l^2 = 0.251 kg m^2.

It comes to rest at q_eq, where kp (q_ref - q_eq) = m g l sin q_eq: short of the setpoint
(q_ref = 0.1 rad, q_eq = 0.0803 rad with kp = 20 N m/rad: the P term needs an error to hold
the bob up). About q_eq, with e = q - q_eq,

    J e'' + kd e' + (kp + m g l cos q_eq) e = -m g l (sin q - sin q_eq - cos q_eq e),

and the right-hand side (gravity's nonlinear remainder, at most m g l (sin q_eq e^2 / 2 +
|e|^3 / 6)) is what the closed form leaves out. Without it: a damped oscillator, w_n^2 = k / J
with k = kp + m g l cos q_eq, zeta = kd / (2 sqrt(k J)) (kd = 1 N m s/rad: zeta = 0.2), and
from rest at q = 0 (e0 = -q_eq)

    e(t) = e0 exp(-zeta w_n t) (cos w_d t + zeta w_n / w_d sin w_d t),  w_d = w_n sqrt(1 - zeta^2).

The remainder f drives the difference d = e_run - e_closed through the same oscillator from
zero, so |d| <= max |f| * int |h| <= max |f| / (J w_d zeta w_n), h the impulse response: the
bound main() prints (3.5e-4 rad here; the difference itself, 2.2e-5 rad, is 16 times
smaller). It is cubic in the step: q_ref ten times smaller, the difference a thousand times
smaller.

Run: ``python examples/pd_pendulum.py`` -- prints q_eq, w_n, zeta, the angle against the closed
form at a few instants, the largest difference and its bound.
"""
import numpy as np
from scipy.optimize import brentq

import mbd
from forces import Actuator, JointForce
from joints import Revolute

M, L, J_CG, G = 1.0, 0.5, 1e-3, 9.81   # kg, m, kg m^2 (about the axis), m/s^2
J = J_CG + M * L ** 2                  # kg m^2, about the hinge
KP, KD = 20.0, 1.0                     # N m/rad, N m s/rad
Q_REF = 0.1                            # rad, the setpoint

T_END, OUTPUT_STEP, RTOL, ATOL = 4.0, 0.005, 1e-11, 1e-13


def build_model(q_ref=Q_REF):
    """The bob hanging at rest from a hinge about y, the PD torque on the hinge."""
    model = mbd.Model("pd_pendulum")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    arm = model.add_body("arm", mass=M, cg=(0.0, 0.0, -L),
                         inertia=np.diag([J_CG, J_CG, J_CG]),
                         cs={"pivot": (0.0, 0.0, 0.0), "rod": (0.0, 0.0, -0.5 * L)})
    try:      # pictures only: the dynamics ignore the shapes
        import viz
    except ImportError:
        pass
    else:
        arm.add_shape(viz.Cylinder(0.01, L, color="steelblue"), cs="rod")
        arm.add_shape(viz.Sphere(0.05, color="darkorange"), cs="cg")
    hinge = model.add(Revolute("hinge", ground, arm["pivot"], axis=(0.0, 1.0, 0.0)))
    angle = model.add(mbd.Sensor("angle", "hinge.q"))
    rate = model.add(mbd.Sensor("rate", "hinge.v"))
    pd = model.add(mbd.Gain("pd", [-KP, -KD], [angle, rate], offset=KP * q_ref))
    model.add(JointForce("motor", hinge, Actuator(pd)))
    return model


def rest_angle(q_ref=Q_REF):
    """q_eq (rad): kp (q_ref - q_eq) = m g l sin q_eq, between 0 and q_ref."""
    return brentq(lambda q: KP * (q_ref - q) - M * G * L * np.sin(q), 0.0, q_ref,
                  xtol=1e-15, rtol=1e-15)


def linear_constants(q_ref=Q_REF):
    """(q_eq, k, w_n, zeta, w_d): the rest angle and the linearised oscillator about it."""
    q_eq = rest_angle(q_ref)
    k = KP + M * G * L * np.cos(q_eq)
    w_n = np.sqrt(k / J)
    zeta = KD / (2.0 * np.sqrt(k * J))
    return q_eq, k, w_n, zeta, w_n * np.sqrt(1.0 - zeta ** 2)


def closed_form(t, q_ref=Q_REF):
    """q(t) of the linearised equation from rest at q = 0, rad."""
    q_eq, _, w_n, zeta, w_d = linear_constants(q_ref)
    t = np.asarray(t, dtype=float)
    e = -q_eq * np.exp(-zeta * w_n * t) * (np.cos(w_d * t)
                                          + zeta * w_n / w_d * np.sin(w_d * t))
    return q_eq + e


def bound(e_max, q_ref=Q_REF):
    """The bound on |q_run - q_closed| (rad) of a run whose |q - q_eq| stays <= e_max:
    max |f| / (J w_d zeta w_n), max |f| <= m g l (sin q_eq e_max^2 / 2 + e_max^3 / 6)."""
    q_eq, _, w_n, zeta, w_d = linear_constants(q_ref)
    f = M * G * L * (np.sin(q_eq) * e_max ** 2 / 2.0 + e_max ** 3 / 6.0)
    return f / (J * w_d * zeta * w_n)


def main(t_end=T_END, q_ref=Q_REF):
    """Simulate; print the angle against the closed form; return (result, the largest
    difference, its bound)."""
    q_eq, k, w_n, zeta, _ = linear_constants(q_ref)
    print(f"setpoint {q_ref} rad, rest at q_eq = {q_eq:.6f} rad (the P term's offset "
          f"{q_ref - q_eq:.6f} rad); k = kp + m g l cos q_eq = {k:.4f} N m/rad, "
          f"w_n = {w_n:.4f} rad/s, zeta = {zeta:.4f}")
    result = build_model(q_ref).build().simulate(t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                                 atol=ATOL)
    q = result.sensor("angle")
    exact = closed_form(result.t, q_ref)
    for t in (0.1, 0.3, 0.5, 1.0, 2.0, 4.0):
        if t <= t_end:
            i = np.argmin(np.abs(result.t - t))
            print(f"  t = {result.t[i]:3.1f} s: q = {q[i]:+.8f} rad, closed form "
                  f"{exact[i]:+.8f}")
    diff = np.abs(q - exact).max()
    limit = bound(np.abs(q - q_eq).max(), q_ref)
    print(f"largest difference {diff:.3e} rad; gravity's nonlinear remainder bounds it by "
          f"{limit:.3e} rad")
    return result, diff, limit


if __name__ == "__main__":
    main()
