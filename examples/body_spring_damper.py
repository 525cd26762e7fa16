"""Simscape's Body Spring & Damper (seed 002): two free bodies hanging in a chain of 3-D
spring-dampers from a ceiling, swinging, bouncing and rocking.

Teaches: free-flying bodies (each on a SixDof to a ground); ``BodySpringDamper`` between a
ground CS and a body CS and between CSs on two bodies (the element makes the two machines one
composite machine sharing one environment); reading the world force vector, the stretch rate
and the stored energy from ``result.force(name)``; an energy balance with damping.

The force that A exerts on B is F_B = -k (|r| - r0) u - b (v . u) u with r = p_B - p_A and
u = r/|r| (SPEC §3.1): the damper acts only along the strap, so the dissipated power is
b (d|r|/dt)^2 per strap. The straps are attached off the centres of gravity, so the bodies also
rock; the upper body is pushed sideways at the start.

Run: ``python examples/body_spring_damper.py`` — prints the energy, the energy dissipated by the
dampers, their sum (constant), and the largest strap force.
"""
import numpy as np

import mbd
from forces import BodySpringDamper
from joints import SixDof

#: (k N/m, b N s/m, r0 m) of each strap
STRAPS = {"strap1": (200.0, 1.0, 0.3), "strap2": (100.0, 0.5, 0.25)}

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 5.0, 1e-3, 1e-10, 1e-10


def build_model():
    """Ceiling -> strap1 -> upper body -> strap2 -> lower body, in earth gravity."""
    model = mbd.Model("body_spring_damper")
    env = mbd.Environment(gravity=(0.0, 0.0, -9.81))
    ceiling = model.add_ground("ceiling", at=(0.0, 0.0, 0.0))
    # a SixDof's two CSs coincide in the drawing: a ground point at each body's CG
    origin1 = model.add_ground("origin1", at=(0.0, 0.0, -0.5), environment=env)
    origin2 = model.add_ground("origin2", at=(0.0, 0.0, -1.0))
    upper = model.add_body("upper", mass=2.0, cg=(0.0, 0.0, -0.5),
                           inertia=np.diag([0.02, 0.025, 0.01]),
                           cs={"top": (0.05, 0.0, -0.4), "bottom": (-0.05, 0.02, -0.6)})
    lower = model.add_body("lower", mass=1.0, cg=(0.0, 0.0, -1.0),
                           inertia=np.diag([0.004, 0.005, 0.003]), cs={"top": (0.0, 0.03, -0.9)})
    # pushed sideways and spun a little; the lower body starts at rest
    model.add(SixDof("free_upper", origin1, upper["cg"], v0=[0.6, 0.3, 0.0, (0.0, 0.0, 1.0)]))
    model.add(SixDof("free_lower", origin2, lower["cg"]))
    (k1, b1, r01), (k2, b2, r02) = STRAPS.values()
    model.add(BodySpringDamper("strap1", ceiling, upper["top"], k=k1, b=b1, r0=r01))
    model.add(BodySpringDamper("strap2", upper["bottom"], lower["top"], k=k2, b=b2, r0=r02))
    return model


def dissipated(result):
    """Energy (n,) J taken out by the dampers since t0: the integral of b (d|r|/dt)^2, by the
    trapezoidal rule on the output rows."""
    power = sum(STRAPS[name][1] * result.force(name).xdot ** 2 for name in STRAPS)
    return np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(result.t))])


def main(t_end=T_END):
    """Simulate; print the energy balance and the strap forces; return the result."""
    result = build_model().build().simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    energy = result.energy()          # kinetic + gravity + the straps' elastic energy
    lost = dissipated(result)
    for t in np.linspace(0.0, t_end, 6):
        i = np.argmin(abs(result.t - t))
        print(f"t = {result.t[i]:4.1f} s: energy {energy[i]:+.6f} J, dissipated {lost[i]:.6f} J, "
              f"sum {energy[i] + lost[i]:+.6f} J")
    for name in STRAPS:
        force = np.linalg.norm(result.force(name).value, axis=1)
        print(f"{name}: force magnitude {force.min():.2f} .. {force.max():.2f} N, "
              f"length {result.force(name).x.min():.3f} .. {result.force(name).x.max():.3f} m")
    return result


if __name__ == "__main__":
    main()
