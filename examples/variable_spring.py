"""Simscape Driveline's Variable Rotational Spring (seed 004): a torsion spring whose stiffness
K(t) comes from a signal, never used below the minimum K_min.

Teaches: a law with a time-varying parameter (``VariableRotationalSpring(K=callable, ...)``)
on a Revolute (``JointForce``); the event logged where K(t) crosses K_min, where the spring
switches to K_min and back; the spring's state (``result.force(name).state["K"]``).

A flywheel (J = 0.5 kg m^2 about z) starts twisted by 0.3 rad at rest. The spring's stiffness
signal K(t) = 50 + 40 sin(2 pi t) N m/rad dips below K_min = 20 N m/rad once a second, between
t = (1/2 + asin(3/4)/(2 pi)) s and (1 - asin(3/4)/(2 pi)) s; there T = K_min theta, so the
flywheel swings as a plain spring-mass with constant energy.

Run: ``python examples/variable_spring.py`` — prints the events and the torque around them.
"""
import numpy as np

import mbd
from forces import JointForce, VariableRotationalSpring
from joints import Revolute

J, K_MIN, THETA0 = 0.5, 20.0, 0.3

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 2.0, 0.01, 1e-10, 1e-10


def stiffness(t):
    """The stiffness signal K(t), N m/rad."""
    return 50.0 + 40.0 * np.sin(2.0 * np.pi * t)


def crossings(t_end):
    """The exact times in (0, t_end] where K(t) = K_min: down, then up, once a period."""
    a = np.arcsin((K_MIN - 50.0) / 40.0) / (2.0 * np.pi)     # sin = -3/4: a < 0
    times = [(n + 0.5 - a, n + 1.0 + a) for n in range(int(np.ceil(t_end)))]
    return [t for pair in times for t in pair if t <= t_end]


def build_model():
    """The flywheel on a Revolute about z, the variable spring between ground and flywheel."""
    model = mbd.Model("variable_spring")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    wheel = model.add_body("flywheel", mass=4.0, cg=(0.0, 0.0, 0.0), inertia=[0.3, 0.3, J])
    shaft = model.add(Revolute("shaft", ground, wheel["cg"], axis=(0.0, 0.0, 1.0), q0=THETA0))
    # port C is the ground (base), port R the flywheel (follower): theta = joint angle
    model.add(JointForce("spring", shaft, VariableRotationalSpring(K=stiffness, K_min=K_MIN)))
    return model


def main(t_end=T_END):
    """Simulate; print each switch with the torque just around it; return the result."""
    result = build_model().build().simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    spring = result.force("spring")
    for ev in result.events:
        i = np.flatnonzero(result.t == ev.t)[0]           # every event has its own row
        print(f"t = {ev.t:.9f} s: {ev.what} (K(t) = {stiffness(ev.t):.6f}); "
              f"theta = {spring.x[i]:+.6f} rad, torque {spring.value[i]:+.6f} N m")
    print("K_min crossings of the signal, exact:", ", ".join(f"{t:.9f}" for t in crossings(t_end)))
    energy = result.energy()
    print(f"energy {energy[0]:.6f} J at t = 0 -> {energy[-1]:.6f} J at t = {t_end} s")
    return result


if __name__ == "__main__":
    main()
