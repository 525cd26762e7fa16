"""A double-wishbone wheel suspension: where it rests under the car's weight, and its bounce.

Teaches: ``mbd.equilibrium`` on a closed loop — the rest state of a four-bar with a
spring-damper holding it up against gravity, the loop closed at every iterate;
``eq.linear`` — its linearization in minimal coordinates: one independent joint coordinate
(the loop's one DOF, chosen by the engine), the state [z, z'] of 2 x dof = 2 entries, the
second-order form M z'' + Cd z' + K z = 0 and ``modes()``: the bounce, with its frequency and
damping ratio; ``viz.animate_mode`` to watch it (``mbd modes ... --animate``).

The corner is drawn in the yz-plane (y outboard, z up, x forward), all four revolutes about
x: the chassis (a ground) carries the inner pivots of a long lower arm (0.45 m, 4 kg) and a
short upper arm (0.30 m, 2.5 kg); their outer ends carry the upright with the wheel (one
30 kg body, its CG at the spindle). The two arms, the upright and the chassis make a planar
four-bar: one DOF, the wheel's travel; in 3-D three of the loop's six closure equations
repeat the others (reported, harmless). A coil-over (``LineForce`` with ``SpringDamper``,
40 kN/m, 300 N s/m) runs from a mount on the chassis above to the lower arm. The chassis is
fixed and there is no tyre, so the coil-over carries the corner's weight alone: the wheel
hangs from it (the spring is stretched 12.2 mm, which holds the corner within 0.05 mm of
the drawn pose; the equilibrium finds the exact rest state). In a car the tyre
carries the wheel and the spring the body; about the rest state the bounce is the same
spring, the same mass. Its frequency is about 3.7 Hz, with ~9 % of critical damping (a road
car's damper gives 20-40 %; lighter damping here lets the tests see many cycles).

Run: ``python examples/suspension_modes.py`` — prints the equilibrium, the modes table and
the linear model's size; ``python -m mbd modes examples/suspension_modes.py --animate``
writes the bounce as a GIF.
"""
import numpy as np

import mbd
from forces import LineForce, SpringDamper
from joints import Revolute

X = (1.0, 0.0, 0.0)                       # every revolute's axis: forward
#: the drawing (m, in the yz-plane): chassis pivots, outer ball joints, spindle, coil mounts
LOWER_INNER, LOWER_OUTER = np.array([0.0, 0.0, 0.20]), np.array([0.0, 0.45, 0.18])
UPPER_INNER, UPPER_OUTER = np.array([0.0, 0.10, 0.52]), np.array([0.0, 0.40, 0.50])
SPINDLE = np.array([0.0, 0.60, 0.34])
COIL_TOP, COIL_BOTTOM = np.array([0.0, 0.24, 0.78]), np.array([0.0, 0.30, 0.19])
MASS = {"lower_arm": 4.0, "upper_arm": 2.5, "wheel": 30.0}   # kg
K_COIL, D_COIL = 40e3, 300.0              # N/m, N s/m
#: free length of the coil, m: its drawn length less the stretch that holds the corner near
#: the drawn pose (the equilibrium finds the exact rest state)
X0_COIL = float(np.linalg.norm(COIL_TOP - COIL_BOTTOM)) - 0.0122
G = 9.81
#: the wheel starts BUMP rad of the lower arm above the drawn pose (an approximate target: the
#: loop is assembled about it); the equilibrium search starts there too
BUMP = 0.05
#: the run settings of ``mbd run``: end time (s), output step (s), rtol, atol (released from
#: the bump, the corner bounces and settles onto its rest state)
T_END, OUTPUT_STEP, RTOL, ATOL = 2.0, 2e-3, 1e-10, 1e-10


def rod_inertia(mass, a, b):
    """Inertia (kg m^2, world axes, about the CG) of a slender rod from a to b."""
    u = (b - a) / np.linalg.norm(b - a)
    length = float(np.linalg.norm(b - a))
    return mass * length ** 2 / 12.0 * (np.eye(3) - np.outer(u, u)) + 1e-4 * np.eye(3)


def build_model():
    """The corner, drawn in its design pose, starting at rest BUMP rad (lower arm) above it."""
    model = mbd.Model("suspension_modes")
    env = mbd.Environment(gravity=(0.0, 0.0, -G))
    lower_pivot = model.add_ground("lower_pivot", at=LOWER_INNER, environment=env)
    upper_pivot = model.add_ground("upper_pivot", at=UPPER_INNER)
    coil_top = model.add_ground("coil_top", at=COIL_TOP)
    lower = model.add_body("lower_arm", MASS["lower_arm"], (LOWER_INNER + LOWER_OUTER) / 2,
                           rod_inertia(MASS["lower_arm"], LOWER_INNER, LOWER_OUTER),
                           cs={"inner": LOWER_INNER, "outer": LOWER_OUTER, "coil": COIL_BOTTOM})
    upper = model.add_body("upper_arm", MASS["upper_arm"], (UPPER_INNER + UPPER_OUTER) / 2,
                           rod_inertia(MASS["upper_arm"], UPPER_INNER, UPPER_OUTER),
                           cs={"inner": UPPER_INNER, "outer": UPPER_OUTER})
    # upright and wheel: one body, the CG at the spindle; a wheel's inertia (spin about y)
    wheel = model.add_body("wheel", MASS["wheel"], SPINDLE, np.diag([0.8, 1.3, 0.8]),
                           cs={"lower": LOWER_OUTER, "upper": UPPER_OUTER, "spindle": SPINDLE})
    try:      # pictures only: the dynamics ignore the shapes
        import viz
    except ImportError:
        pass
    else:
        for body, (a, b), color in ((lower, (LOWER_INNER, LOWER_OUTER), "steelblue"),
                                    (upper, (UPPER_INNER, UPPER_OUTER), "darkorange")):
            body.add_shape(viz.Cylinder(0.015, float(np.linalg.norm(b - a)),
                                        axis=tuple(b - a), color=color), cs="cg")
        wheel.add_shape(viz.Cylinder(0.30, 0.14, axis=(0.0, 1.0, 0.0), color="dimgray",
                                     opacity=0.35), cs="spindle")
        wheel.add_shape(viz.Cylinder(0.02, float(np.linalg.norm(UPPER_OUTER - LOWER_OUTER)),
                                     axis=tuple(UPPER_OUTER - LOWER_OUTER), color="gray"),
                        cs="lower")
    model.add(Revolute("lower_inner", lower_pivot, lower["inner"], axis=X, q0=BUMP))
    model.add(Revolute("lower_ball", lower["outer"], wheel["lower"], axis=X))
    model.add(Revolute("upper_ball", wheel["upper"], upper["outer"], axis=X))
    model.add(Revolute("upper_inner", upper["inner"], upper_pivot, axis=X))
    model.add(LineForce("coilover", coil_top, lower["coil"],
                        SpringDamper(c=K_COIL, d=D_COIL, x0=X0_COIL)))
    return model


def main():
    """Find the rest state and the bounce; print them; return the Equilibrium."""
    system = build_model().build()
    print(system.report())
    eq = mbd.equilibrium(system)
    print(eq.table())
    linear = eq.linear
    print(f"independent coordinate: {', '.join(linear.state_names[:linear.dof])}; A is "
          f"{linear.A.shape[0]} x {linear.A.shape[1]}: 2 x dof = 2 x {linear.dof} states "
          f"({', '.join(linear.state_names)})")
    print(f"M = {linear.M[0, 0]:.6g}, K = {linear.K[0, 0]:.6g}, Cd = {linear.Cd[0, 0]:.6g} "
          "(about the independent coordinate: kg m^2, N m/rad, N m s/rad)")
    print(linear.table())
    bounce, = linear.modes()
    print(f"the bounce: {bounce.frequency:.6g} Hz undamped, {bounce.damped_frequency:.6g} Hz "
          f"damped, damping ratio {bounce.damping_ratio:.4g}; shape (rad per rad): "
          + ", ".join(f"{name} {value.real:+.4f}" for name, value in bounce.shape.items()))
    return eq


if __name__ == "__main__":
    main()
